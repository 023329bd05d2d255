import { createHash } from 'node:crypto';
import type { SupplierBrand, SupplierItem } from './supplier.port';

/**
 * The sandbox supplier's built-in catalog: real-world-shaped brands and items in USD, EUR, GBP and
 * CAD, so integrations can be built against data that looks like a production catalog. Values are
 * major units (25 means 25.00). Brand `test-failure` exists so failure paths can be exercised: every
 * card issued from it fails permanently.
 */

const IMAGE_BASE = 'https://cdn.rewards.example/brands';

const EURO_ZONE = ['DE', 'FR', 'IE', 'ES', 'IT', 'NL'];

interface Offer {
  currency: 'USD' | 'EUR' | 'GBP' | 'CAD';
  countries: string[];
  /** One FIXED_VALUE item per value. */
  fixed?: number[];
  /** One VARIABLE_VALUE item. */
  range?: [number, number];
}

interface BrandSpec {
  key: string;
  name: string;
  shortDescription: string;
  description: string;
  categories: string[];
  /** Extra terms the brand asks to be shown; the standard sandbox terms are always added. */
  terms?: string;
  offers: Offer[];
}

const SYMBOL: Record<Offer['currency'], string> = { USD: '$', EUR: '€', GBP: '£', CAD: 'C$' };

/**
 * utids are derived from what identifies an item (brand, currency, value), not from its position in
 * this file, so they stay the same when brands are added or reordered: rewards keep referencing them.
 */
function utidOf(brandKey: string, currency: string, value: string): string {
  const digest = createHash('sha256').update(`${brandKey}|${currency}|${value}`).digest();
  return `U${(digest.readUInt32BE(0) % 900_000) + 100_000}`;
}

function itemsOf(spec: BrandSpec): SupplierItem[] {
  const items: SupplierItem[] = [];
  for (const offer of spec.offers) {
    for (const faceValue of offer.fixed ?? []) {
      items.push({
        utid: utidOf(spec.key, offer.currency, String(faceValue)),
        rewardName: `${spec.name} ${SYMBOL[offer.currency]}${faceValue} Gift Card`,
        currencyCode: offer.currency,
        valueType: 'FIXED_VALUE',
        faceValue,
        minValue: null,
        maxValue: null,
        countries: offer.countries,
      });
    }
    if (offer.range) {
      const [minValue, maxValue] = offer.range;
      items.push({
        utid: utidOf(spec.key, offer.currency, `${minValue}-${maxValue}`),
        rewardName: `${spec.name} Gift Card (${offer.currency})`,
        currencyCode: offer.currency,
        valueType: 'VARIABLE_VALUE',
        faceValue: null,
        minValue,
        maxValue,
        countries: offer.countries,
      });
    }
  }
  return items;
}

function disclaimerOf(spec: BrandSpec): string {
  return [
    `${spec.name} is not a sponsor of this promotion and is not responsible for it.`,
    spec.terms,
    'Gift cards cannot be exchanged for cash, reloaded or replaced if lost or stolen, except where required by law.',
  ]
    .filter(Boolean)
    .join(' ');
}

const BRANDS: BrandSpec[] = [
  {
    key: 'amazon-us',
    name: 'Amazon.com',
    shortDescription: 'Millions of items, shipped fast.',
    description: 'Amazon.com Gift Cards can be redeemed toward millions of items at www.amazon.com, from books and electronics to groceries and household essentials.',
    categories: ['Online Shopping', 'Electronics'],
    terms: 'Redeemable only on www.amazon.com and certain affiliated sites.',
    offers: [{ currency: 'USD', countries: ['US'], fixed: [10, 25, 50, 100], range: [1, 2000] }],
  },
  {
    key: 'amazon-uk',
    name: 'Amazon.co.uk',
    shortDescription: 'Shop millions of items on Amazon.co.uk.',
    description: 'Amazon.co.uk Gift Cards can be used towards millions of products on www.amazon.co.uk, including books, music, electronics, fashion and home goods.',
    categories: ['Online Shopping', 'Electronics'],
    terms: 'Redeemable only on www.amazon.co.uk.',
    offers: [{ currency: 'GBP', countries: ['GB'], fixed: [10, 25, 50], range: [1, 2000] }],
  },
  {
    key: 'amazon-de',
    name: 'Amazon.de',
    shortDescription: 'Millionen Artikel auf Amazon.de.',
    description: 'Amazon.de Gutscheine sind für Millionen Artikel auf www.amazon.de einlösbar: Bücher, Elektronik, Mode, Haushalt und mehr.',
    categories: ['Online Shopping', 'Electronics'],
    terms: 'Redeemable only on www.amazon.de.',
    offers: [{ currency: 'EUR', countries: ['DE'], fixed: [15, 25, 50] }],
  },
  {
    key: 'amazon-ca',
    name: 'Amazon.ca',
    shortDescription: 'Millions of items on Amazon.ca.',
    description: 'Amazon.ca Gift Cards are redeemable for millions of items on www.amazon.ca, with fast shipping across Canada.',
    categories: ['Online Shopping', 'Electronics'],
    terms: 'Redeemable only on www.amazon.ca.',
    offers: [{ currency: 'CAD', countries: ['CA'], fixed: [25, 50, 100] }],
  },
  {
    key: 'apple',
    name: 'Apple',
    shortDescription: 'For everything Apple: products, accessories, apps and more.',
    description: 'The Apple Gift Card can be used for products, accessories and services at Apple Stores and apple.com, and for apps, games, music, iCloud+ and subscriptions on the App Store.',
    categories: ['Electronics', 'Entertainment'],
    terms: 'Valid only in the country of purchase.',
    offers: [
      { currency: 'USD', countries: ['US'], range: [10, 500] },
      { currency: 'CAD', countries: ['CA'], range: [15, 500] },
      { currency: 'GBP', countries: ['GB'], range: [10, 500] },
      { currency: 'EUR', countries: ['DE', 'FR', 'IT', 'ES', 'NL', 'IE'], range: [10, 500] },
    ],
  },
  {
    key: 'google-play',
    name: 'Google Play',
    shortDescription: 'Apps, games and more on Google Play.',
    description: 'Google Play gift codes can be used for apps, games, books, movies and subscriptions on Google Play.',
    categories: ['Entertainment', 'Gaming'],
    offers: [
      { currency: 'USD', countries: ['US'], fixed: [10, 25, 50] },
      { currency: 'EUR', countries: ['DE', 'FR', 'IT', 'ES', 'NL'], fixed: [15, 25] },
    ],
  },
  {
    key: 'starbucks',
    name: 'Starbucks',
    shortDescription: 'Coffee, tea and treats.',
    description: 'Treat someone to their favourite coffee, tea or snack at participating Starbucks stores, or load the card in the Starbucks app.',
    categories: ['Food & Drink', 'Coffee'],
    offers: [
      { currency: 'USD', countries: ['US'], fixed: [5, 10, 25] },
      { currency: 'CAD', countries: ['CA'], fixed: [10, 25] },
    ],
  },
  {
    key: 'target',
    name: 'Target',
    shortDescription: 'Expect more. Pay less.',
    description: 'Target GiftCards can be used at any Target store in the U.S. and on Target.com for clothing, home goods, groceries and electronics.',
    categories: ['Department Store', 'Groceries'],
    offers: [{ currency: 'USD', countries: ['US'], fixed: [25, 50], range: [5, 500] }],
  },
  {
    key: 'walmart',
    name: 'Walmart',
    shortDescription: 'Save money. Live better.',
    description: 'Walmart eGift Cards are accepted at Walmart and Sam’s Club stores in the U.S. and on Walmart.com.',
    categories: ['Department Store', 'Groceries'],
    offers: [{ currency: 'USD', countries: ['US'], fixed: [25, 50, 100] }],
  },
  {
    key: 'best-buy',
    name: 'Best Buy',
    shortDescription: 'Tech, appliances and more.',
    description: 'Best Buy e-Gift Cards are redeemable at Best Buy stores in the U.S. and on BestBuy.com for electronics, appliances and services.',
    categories: ['Electronics'],
    offers: [{ currency: 'USD', countries: ['US'], fixed: [25, 50, 100] }],
  },
  {
    key: 'the-home-depot',
    name: 'The Home Depot',
    shortDescription: 'How doers get more done.',
    description: 'The Home Depot eGift Card is redeemable in U.S. stores and on homedepot.com for tools, hardware, garden and home improvement supplies.',
    categories: ['Home & Garden'],
    offers: [{ currency: 'USD', countries: ['US'], range: [5, 2000] }],
  },
  {
    key: 'netflix',
    name: 'Netflix',
    shortDescription: 'Films and series to stream.',
    description: 'A Netflix gift card pays for a Netflix membership: films, series and documentaries on any device.',
    categories: ['Entertainment', 'Streaming'],
    terms: 'Not redeemable for Netflix memberships billed by third parties.',
    offers: [
      { currency: 'USD', countries: ['US'], fixed: [25, 50] },
      { currency: 'GBP', countries: ['GB'], fixed: [15, 25] },
    ],
  },
  {
    key: 'spotify',
    name: 'Spotify',
    shortDescription: 'Music and podcasts, ad-free.',
    description: 'Spotify Premium gift cards give months of ad-free music and podcasts, offline listening and unlimited skips.',
    categories: ['Entertainment', 'Music'],
    offers: [
      { currency: 'USD', countries: ['US'], fixed: [10, 30, 60] },
      { currency: 'EUR', countries: EURO_ZONE, fixed: [10, 30] },
      { currency: 'GBP', countries: ['GB'], fixed: [10, 30] },
    ],
  },
  {
    key: 'uber',
    name: 'Uber',
    shortDescription: 'Rides and Uber Eats.',
    description: 'Uber gift cards can be used for rides with Uber and for food delivery with Uber Eats.',
    categories: ['Travel', 'Food & Drink'],
    offers: [
      { currency: 'USD', countries: ['US'], range: [15, 200] },
      { currency: 'CAD', countries: ['CA'], range: [15, 200] },
    ],
  },
  {
    key: 'doordash',
    name: 'DoorDash',
    shortDescription: 'Food delivered from local restaurants.',
    description: 'DoorDash gift cards pay for deliveries from thousands of local restaurants, grocery and convenience stores.',
    categories: ['Food & Drink'],
    offers: [{ currency: 'USD', countries: ['US'], fixed: [25, 50, 100] }],
  },
  {
    key: 'airbnb',
    name: 'Airbnb',
    shortDescription: 'Stays and experiences worldwide.',
    description: 'Airbnb gift cards can be used for stays and experiences in more than 190 countries.',
    categories: ['Travel'],
    offers: [
      { currency: 'USD', countries: ['US'], range: [25, 500] },
      { currency: 'GBP', countries: ['GB'], range: [25, 500] },
    ],
  },
  {
    key: 'sephora',
    name: 'Sephora',
    shortDescription: 'Beauty, makeup and skincare.',
    description: 'Sephora gift cards are redeemable for makeup, skincare, fragrance and hair care in Sephora stores and online.',
    categories: ['Beauty'],
    offers: [
      { currency: 'USD', countries: ['US'], fixed: [25, 50, 100] },
      { currency: 'CAD', countries: ['CA'], fixed: [25, 50] },
      { currency: 'EUR', countries: ['FR', 'IT', 'ES'], fixed: [25, 50] },
    ],
  },
  {
    key: 'nike',
    name: 'Nike',
    shortDescription: 'Just do it.',
    description: 'Nike gift cards can be used for shoes, clothing and gear at Nike stores and on nike.com.',
    categories: ['Fashion', 'Sports'],
    offers: [{ currency: 'USD', countries: ['US'], range: [10, 500] }],
  },
  {
    key: 'ikea',
    name: 'IKEA',
    shortDescription: 'Affordable furniture and home furnishings.',
    description: 'IKEA gift cards can be spent on furniture, home accessories and food in IKEA stores and online in the country of issue.',
    categories: ['Home & Garden'],
    terms: 'Valid only in the country of issue.',
    offers: [
      { currency: 'USD', countries: ['US'], range: [10, 500] },
      { currency: 'CAD', countries: ['CA'], range: [10, 500] },
      { currency: 'GBP', countries: ['GB'], range: [10, 500] },
      { currency: 'EUR', countries: EURO_ZONE, range: [10, 500] },
    ],
  },
  {
    key: 'zalando',
    name: 'Zalando',
    shortDescription: 'Fashion and shoes online.',
    description: 'Zalando gift cards are redeemable for fashion, shoes and accessories from thousands of brands on Zalando.',
    categories: ['Fashion', 'Online Shopping'],
    offers: [{ currency: 'EUR', countries: ['DE', 'FR', 'NL', 'IT', 'ES', 'IE'], fixed: [20, 50, 100] }],
  },
  {
    key: 'marks-and-spencer',
    name: 'Marks & Spencer',
    shortDescription: 'Food, clothing and home.',
    description: 'M&S gift cards can be used in Marks & Spencer stores and online for food, clothing, beauty and homeware.',
    categories: ['Department Store', 'Groceries'],
    offers: [
      { currency: 'GBP', countries: ['GB'], fixed: [10, 25, 50] },
      { currency: 'EUR', countries: ['IE'], fixed: [25, 50] },
    ],
  },
  {
    key: 'tesco',
    name: 'Tesco',
    shortDescription: 'Every little helps.',
    description: 'Tesco gift cards can be used in Tesco stores across the UK for groceries, clothing and household items.',
    categories: ['Groceries'],
    offers: [{ currency: 'GBP', countries: ['GB'], range: [5, 250] }],
  },
  {
    key: 'john-lewis',
    name: 'John Lewis & Partners',
    shortDescription: 'Fashion, home and technology.',
    description: 'John Lewis & Partners gift cards are accepted at John Lewis and Waitrose shops and online.',
    categories: ['Department Store'],
    offers: [{ currency: 'GBP', countries: ['GB'], range: [10, 500] }],
  },
  {
    key: 'fnac',
    name: 'Fnac',
    shortDescription: 'Livres, musique et high-tech.',
    description: 'La carte cadeau Fnac est valable en magasin Fnac et sur fnac.com pour les livres, la musique, les jeux vidéo et le high-tech.',
    categories: ['Electronics', 'Books'],
    offers: [{ currency: 'EUR', countries: ['FR'], fixed: [20, 50, 100] }],
  },
  {
    key: 'decathlon',
    name: 'Decathlon',
    shortDescription: 'Sport for everyone.',
    description: 'Decathlon gift cards are valid in Decathlon stores and online for sports equipment and clothing across more than 60 sports.',
    categories: ['Sports'],
    offers: [
      { currency: 'EUR', countries: ['FR', 'DE', 'ES', 'IT', 'NL'], range: [10, 300] },
      { currency: 'GBP', countries: ['GB'], range: [10, 300] },
    ],
  },
  {
    key: 'el-corte-ingles',
    name: 'El Corte Inglés',
    shortDescription: 'Todo en un mismo lugar.',
    description: 'La tarjeta regalo de El Corte Inglés es válida en todos sus centros y en elcorteingles.es.',
    categories: ['Department Store'],
    offers: [{ currency: 'EUR', countries: ['ES'], range: [10, 600] }],
  },
  {
    key: 'mediamarkt',
    name: 'MediaMarkt',
    shortDescription: 'Electronics for everyone.',
    description: 'MediaMarkt gift cards are redeemable for electronics, appliances and entertainment in stores and online in the country of issue.',
    categories: ['Electronics'],
    offers: [{ currency: 'EUR', countries: ['DE', 'NL', 'ES', 'IT'], fixed: [25, 50, 100] }],
  },
  {
    key: 'bol',
    name: 'bol.com',
    shortDescription: 'De winkel van ons allemaal.',
    description: 'De bol.com cadeaukaart is te besteden aan miljoenen artikelen op bol.com.',
    categories: ['Online Shopping'],
    offers: [{ currency: 'EUR', countries: ['NL'], fixed: [10, 25, 50] }],
  },
  {
    key: 'tim-hortons',
    name: 'Tim Hortons',
    shortDescription: 'Coffee and baked goods, always fresh.',
    description: 'Tim Card gift cards are accepted at participating Tim Hortons restaurants in Canada.',
    categories: ['Food & Drink', 'Coffee'],
    offers: [{ currency: 'CAD', countries: ['CA'], fixed: [10, 25, 50] }],
  },
  {
    key: 'canadian-tire',
    name: 'Canadian Tire',
    shortDescription: 'Automotive, home, sports and more.',
    description: 'Canadian Tire eGift Cards are redeemable at Canadian Tire stores and online for automotive, home, seasonal and sporting goods.',
    categories: ['Home & Garden', 'Automotive'],
    offers: [{ currency: 'CAD', countries: ['CA'], range: [10, 500] }],
  },
  {
    key: 'indigo',
    name: 'Indigo',
    shortDescription: 'Books, gifts and more.',
    description: 'Indigo gift cards can be used at Indigo, Chapters and Coles stores and on indigo.ca.',
    categories: ['Books'],
    offers: [{ currency: 'CAD', countries: ['CA'], fixed: [25, 50] }],
  },
  {
    key: 'steam',
    name: 'Steam',
    shortDescription: 'Thousands of PC games.',
    description: 'Steam Wallet codes add funds to a Steam account for games, software and hardware on the Steam store.',
    categories: ['Gaming'],
    offers: [
      { currency: 'USD', countries: ['US'], fixed: [20, 50, 100] },
      { currency: 'EUR', countries: EURO_ZONE, fixed: [20, 50] },
      { currency: 'GBP', countries: ['GB'], fixed: [20, 50] },
      { currency: 'CAD', countries: ['CA'], fixed: [20, 50] },
    ],
  },
  {
    key: 'xbox',
    name: 'Xbox',
    shortDescription: 'Games, add-ons and Game Pass.',
    description: 'Xbox gift cards can be used for games, add-ons, movies and Game Pass memberships on the Microsoft Store.',
    categories: ['Gaming'],
    offers: [{ currency: 'USD', countries: ['US'], fixed: [25, 50] }],
  },
  {
    key: 'playstation',
    name: 'PlayStation Store',
    shortDescription: 'Games and add-ons for PlayStation.',
    description: 'PlayStation Store gift cards add funds to a PlayStation Network wallet for games, add-ons and subscriptions.',
    categories: ['Gaming'],
    terms: 'Requires a PlayStation Network account registered in the country of issue.',
    offers: [
      { currency: 'USD', countries: ['US'], fixed: [10, 25, 50, 100] },
      { currency: 'GBP', countries: ['GB'], fixed: [20, 50] },
    ],
  },
  {
    key: 'visa-prepaid',
    name: 'Visa Prepaid Card',
    shortDescription: 'Spend it wherever Visa debit is accepted.',
    description: 'A virtual Visa prepaid card usable online and in stores wherever Visa debit cards are accepted in the U.S.',
    categories: ['Prepaid Cards'],
    terms: 'Issued by The Sandbox Bank, N.A., Member FDIC. Card activation is required.',
    offers: [{ currency: 'USD', countries: ['US'], range: [10, 1000] }],
  },
  {
    key: 'test-failure',
    name: 'Test Failure (Sandbox)',
    shortDescription: 'Every card from this brand fails to issue.',
    description: 'A sandbox-only brand for exercising failure handling: every card ordered from it fails permanently, so `card.failed` events and refunds can be tested.',
    categories: ['Testing'],
    offers: [{ currency: 'USD', countries: ['US'], fixed: [10], range: [1, 100] }],
  },
];

export const SANDBOX_FAILING_BRAND_KEY = 'test-failure';

export const SANDBOX_CATALOG: readonly SupplierBrand[] = Object.freeze(
  BRANDS.map((spec) => ({
    brandKey: spec.key,
    name: spec.name,
    description: spec.description,
    shortDescription: spec.shortDescription,
    disclaimer: disclaimerOf(spec),
    imageUrl: `${IMAGE_BASE}/${spec.key}.png`,
    categories: spec.categories,
    items: itemsOf(spec),
  })),
);
