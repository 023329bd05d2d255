/**
 * Tango Card RaaS API v2 wire format: the request and response bodies this adapter sends and reads.
 * Field names and types follow Tango's published Swagger definition and the models of its generated
 * SDKs; docs/suppliers.md lists the sources. Only fields we send or read are typed; Tango documents
 * that it may add response fields at any time, so unknown ones are ignored.
 */

/** POST /raas/v2/orders body (`CreateOrderCriteria`). Required: accountIdentifier, amount, customerIdentifier, sendEmail, utid. */
export interface TangoCreateOrderRequest {
  accountIdentifier: string;
  customerIdentifier: string;
  /** Face value in the item's currency, major units (25 means 25.00); required for fixed items too. */
  amount: number;
  utid: string;
  sendEmail: boolean;
  /** Idempotent: one order per value per account; a repeat returns the original order. */
  externalRefID?: string;
  recipient?: TangoNameEmail;
  sender?: TangoNameEmail;
  campaign?: string;
  emailSubject?: string;
  message?: string;
  notes?: string;
  etid?: string;
}

export interface TangoNameEmail {
  email?: string;
  firstName?: string;
  lastName?: string;
}

/** `MoneyView`. */
export interface TangoMoney {
  currencyCode?: string;
  value?: number;
  exchangeRate?: number;
  fee?: number;
  total?: number;
}

/** `CredentialView`: `type` is one of text, url, barcode, date; `credentialType` names it (cardNumber, PIN, redemptionUrl, ...). */
export interface TangoCredential {
  label?: string;
  value?: string;
  type?: string;
  credentialType?: string;
}

/** `OrderRewardView`. `credentials` is the legacy label → value map; `credentialList` is typed. */
export interface TangoReward {
  credentials?: Record<string, string>;
  credentialList?: TangoCredential[];
  redemptionInstructions?: string;
}

/** POST /orders answer (`OrderViewSummary`) and GET /orders/{referenceOrderID} answer (`OrderViewVerbose`). */
export interface TangoOrder {
  referenceOrderID: string;
  externalRefID?: string;
  accountIdentifier?: string;
  customerIdentifier?: string;
  utid: string;
  rewardName?: string;
  amountCharged?: TangoMoney;
  denomination?: TangoMoney;
  sendEmail?: boolean;
  /** `COMPLETE` for an order whose reward was issued. */
  status: string;
  createdAt?: string;
  reward?: TangoReward;
}

/** GET /orders answer (`OrderListView`): list items carry no reward, see GET /orders/{referenceOrderID}. */
export interface TangoOrderList {
  page?: { number: number; elementsPerBlock: number; resultCount: number; totalCount: number };
  orders: Omit<TangoOrder, 'reward'>[];
}

/** `ItemViewVerbose`. */
export interface TangoItem {
  utid: string;
  rewardName: string;
  currencyCode: string;
  /** `active` when orderable. */
  status: string;
  /** `FIXED_VALUE` or `VARIABLE_VALUE`. */
  valueType: string;
  rewardType?: string;
  faceValue?: number | null;
  minValue?: number | null;
  maxValue?: number | null;
  countries: string[];
  credentialTypes?: string[];
  redemptionInstructions?: string;
  createdDate?: string;
  lastUpdateDate?: string;
}

/** `BrandViewWithItemsVerbose`. `imageUrls` maps a size (`80w-326ppi` ... `1200w-326ppi`) to a URL. */
export interface TangoBrand {
  brandKey: string;
  brandName: string;
  description?: string;
  shortDescription?: string;
  disclaimer?: string;
  terms?: string;
  imageUrls?: Record<string, string>;
  /** `active` when offered. */
  status: string;
  createdDate?: string;
  lastUpdateDate?: string;
  items: TangoItem[];
}

/** GET /raas/v2/catalogs answer (`CatalogViewVerbose`). */
export interface TangoCatalog {
  catalogName?: string;
  brands: TangoBrand[];
}

/** The error body of a 4xx/5xx answer. */
export interface TangoErrorBody {
  timestamp?: string;
  requestId?: string;
  path?: string;
  httpCode?: number;
  httpPhrase?: string;
  i18nKey?: string;
  message?: string;
  errors?: { path?: string; i18nKey?: string; message?: string; invalidValue?: string; constraint?: string }[];
}
