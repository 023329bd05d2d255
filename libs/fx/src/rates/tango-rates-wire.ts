/**
 * Tango Card RaaS v2 `GET /raas/v2/exchangerates`, as its published models describe it
 * (ExchangeRateResponse, ExchangeRate): `baseFx` units of `rewardCurrency` per one unit of
 * `baseCurrency` (the Tango account's currency), e.g. base USD, reward CAD, baseFx 1.3599.
 */
export interface TangoExchangeRate {
  lastModifiedDate: string;
  rewardCurrency: string;
  baseCurrency: string;
  baseFx: number;
}

export interface TangoExchangeRateResponse {
  disclaimer?: string;
  exchangeRates: TangoExchangeRate[];
}
