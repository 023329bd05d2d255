import { html, trustedHtml, type SafeHtml } from '@app/core';
import type { RecipientTexts } from '@app/mail';
import type { IssuedCardDto } from '@app/rewards';
import { code128Svg } from './code128';
import type { PickableBrandView, PickableItemView, RedemptionStateView } from './dto/redemption.dto';

export const REDEEM_SCRIPT_PATH = '/r/assets/redeem.js';
const DEFAULT_COLOR = '#1A73E8';

/** Readable text on the brand colour: dark on light colours, white on dark ones. */
function textOn(color: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6 ? '#111111' : '#FFFFFF';
}

function initials(name: string): string {
  const letters = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0]!.toUpperCase());
  return letters.join('') || '?';
}

/**
 * A logo that degrades well: initials underneath, the image on top. Brand images are remote https
 * URLs; when one fails (offline, blocked), redeem.js hides it and the initials show.
 */
function logo(name: string, url: string | null, size: 'lg' | 'sm'): SafeHtml {
  const img = url && /^https:\/\//.test(url) && html`<img src="${url}" alt="${name}" data-fallback loading="lazy" referrerpolicy="no-referrer">`;
  return html`<span class="logo logo-${size}"><span class="initials" aria-hidden="true">${initials(name)}</span>${img}</span>`;
}

type Texts = RecipientTexts;

/**
 * The page in the recipient's language (docs/recipient-language.md): `<html lang>` names it, and the
 * script gets its own texts and the locale to format amounts with (data attributes on the body).
 */
function page(texts: Texts, title: string, body: SafeHtml, options: { color?: string; head?: SafeHtml | false; script?: boolean } = {}): string {
  const color = options.color ?? DEFAULT_COLOR;
  const script = options.script !== false && html`<script src="${REDEEM_SCRIPT_PATH}" defer></script>`;
  return html`<!doctype html>
<html lang="${texts.language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex,nofollow"><title>${title}</title>${options.head}
<style>${trustedHtml(STYLES)}</style></head>
<body style="--brand:${color};--on-brand:${textOn(color)}" data-locale="${texts.locale}" data-texts="${JSON.stringify(texts.section('script'))}">${body}
${script}</body></html>`.toString();
}

/**
 * The recipient's page. `preview`: the sender's look at it from the dashboard (docs/redemption.md,
 * Preview): a banner says so, the cards' codes stay hidden, nothing can be picked, and no script runs.
 */
export function renderRedemptionPage(state: RedemptionStateView, texts: Texts, options: { preview?: boolean } = {}): string {
  const { reward, cards, brands } = state;
  const preview = options.preview === true;
  const money = (cents: number) => texts.money(cents, reward.currency);
  const color = reward.brandColor && /^#[0-9A-Fa-f]{6}$/.test(reward.brandColor) ? reward.brandColor : DEFAULT_COLOR;
  const fixed = reward.type === 'FIXED' && reward.brandName !== null;
  const params = { name: reward.recipientFirstName, sender: reward.senderName, value: money(reward.faceValueCents), brand: reward.brandName ?? '' };
  const notice = statusNotice(state, texts);
  const pending = cards.some((card) => card.status === 'PENDING');
  // The recipient's zone is unknown: the deadline in UTC, saying so, and the exact instant in `datetime`.
  const expiry =
    reward.expiresAt &&
    reward.canPick &&
    html`<p class="muted">${texts.html('page', 'pickBy', { date: html`<time datetime="${new Date(reward.expiresAt).toISOString()}">${texts.instant(reward.expiresAt)}</time>` })}</p>`;

  const body = html`
${preview && PREVIEW_BANNER}<header class="bar">${logo(reward.senderName, reward.logoUrl, 'lg')}<span class="sender">${reward.senderName}</span></header>
<main>
<h1>${texts.t('page', fixed ? 'headingFixed' : 'headingChoice', params)}</h1>
${reward.message && html`<blockquote class="message">${reward.message}</blockquote>`}
<dl class="amounts">
<div><dt>${texts.t('page', 'rewardValue')}</dt><dd id="face-value">${money(reward.faceValueCents)}</dd></div>
${reward.type === 'CHOICE' && html`<div><dt>${texts.t('page', 'leftToSpend')}</dt><dd id="remaining-value">${money(reward.remainingValueCents)}</dd></div>`}
</dl>
${notice && html`<p class="notice notice-${reward.status.toLowerCase()}" role="status" id="reward-status">${notice}</p>`}
${expiry}
${cardsSection(reward.type, cards, money, texts, preview)}
${reward.canPick && !preview && pickSection(brands, reward.remainingValueCents, reward.currency, money, texts)}
<p class="muted small">${texts.t('page', 'keepPrivate')}</p>
</main>`;
  return page(texts, texts.t('page', fixed ? 'titleFixed' : 'titleChoice', params), body, {
    color,
    // Without JavaScript, a page with a card still issuing refreshes itself.
    head: pending && !preview && html`<noscript><meta http-equiv="refresh" content="3"></noscript>`,
    script: !preview,
  });
}

/** The preview's banner is for the sender, so it is in the dashboard's language (English), marked as such. */
const PREVIEW_BANNER = html`<aside class="preview-banner" lang="en" aria-label="Preview">
<strong>Preview.</strong> This is the page your recipient sees. Looking at it here does not mark the reward opened;
card codes stay hidden and nothing can be picked.</aside>`;

/** What the recipient must know about the reward as a whole, if anything. */
function statusNotice({ reward, cards }: RedemptionStateView, texts: Texts): string | null {
  // Waiting for the sender's approval (docs/controls.md): nothing to use yet, and no date known.
  if (reward.status === 'CREATED' && reward.availableAt === null) return texts.t('page', 'awaitingApproval');
  // A scheduled send before its delivery time (docs/delivery.md): from when it can be used.
  if (reward.status === 'CREATED' && reward.availableAt) return texts.t('page', 'availableFrom', { date: texts.dateTime(reward.availableAt) });
  if (reward.type === 'FIXED') {
    // A FIXED card that fails cancels the reward (docs/rewards.md, Issuance): not the sender's doing.
    if (cards.some((card) => card.status === 'FAILED')) return texts.t('page', 'fixedFailed');
    if (reward.status === 'REDEEMED') return null;
  }
  if (reward.status === 'SENT' || reward.status === 'OPENED' || reward.status === 'PARTIALLY_REDEEMED') {
    // Past its expiry time but not yet swept: already closed for picks.
    return reward.type === 'CHOICE' && !reward.canPick && reward.remainingValueCents > 0 ? texts.t('page', 'expired') : null;
  }
  if (reward.status === 'CANCELED') return texts.t('page', 'canceled');
  if (reward.status === 'EXPIRED') return texts.t('page', 'expired');
  if (reward.status === 'REDEEMED') return texts.t('page', 'redeemed');
  return null;
}

function cardsSection(type: string, cards: IssuedCardDto[], money: (cents: number) => string, texts: Texts, preview: boolean): SafeHtml | null {
  if (cards.length === 0) return null;
  const title = texts.t('page', type === 'FIXED' ? 'yourGiftCard' : 'yourCards');
  return html`<section aria-labelledby="cards-title"><h2 id="cards-title">${title}</h2>
<ul class="cards">${cards.map((card) => cardItem(card, type, money, texts, preview))}</ul></section>`;
}

function cardItem(card: IssuedCardDto, type: string, money: (cents: number) => string, texts: Texts, preview: boolean): SafeHtml {
  const head = html`<div class="card-head">${logo(card.brandName, card.brandImageUrl, 'sm')}<div><h3>${card.brandName}</h3>
<p class="muted">${card.rewardName} · <strong>${money(card.amountCents)}</strong></p></div></div>`;
  let content: SafeHtml;
  if (card.status === 'PENDING') {
    content = html`<p class="pending" role="status"><span class="spinner" aria-hidden="true"></span>${texts.t('page', 'issuing')}</p>`;
  } else if (card.status === 'FAILED') {
    content = html`<p class="notice">${texts.t('page', type === 'CHOICE' ? 'cardFailedReturned' : 'cardFailed')}</p>`;
  } else if (preview) {
    content = html`<p class="muted" lang="en">Codes hidden in the preview.</p>`;
  } else {
    content = html`<dl class="credentials">${card.credentials.map((c) => credential(c, texts))}</dl>${
      card.redemptionInstructions && html`<p class="instructions">${card.redemptionInstructions}</p>`
    }`;
  }
  return html`<li class="card" data-card-status="${card.status}" data-card-id="${card.id}">${head}${content}</li>`;
}

function credential(c: IssuedCardDto['credentials'][number], texts: Texts): SafeHtml {
  const label = html`<dt>${c.label}</dt>`;
  switch (c.type) {
    case 'url':
      return /^https?:\/\//.test(c.value)
        ? html`${label}<dd><a class="button secondary" href="${c.value}" target="_blank" rel="noopener noreferrer">${texts.t('page', 'openCard')}</a></dd>`
        : html`${label}<dd><code>${c.value}</code></dd>`;
    case 'barcode': {
      const svg = code128Svg(c.value, texts.t('page', 'barcodeOf', { code: c.value }));
      return html`${label}<dd>${svg}<code class="barcode-value">${c.value}</code></dd>`;
    }
    case 'date':
      return html`${label}<dd><time datetime="${c.value}">${isNaN(Date.parse(c.value)) ? c.value : texts.date(c.value)}</time></dd>`;
    default:
      return html`${label}<dd class="copyable"><code>${c.value}</code>
<button type="button" class="copy" data-copy="${c.value}" aria-label="${texts.t('page', 'copyLabel', { label: c.label })}">${texts.t('page', 'copy')}</button></dd>`;
  }
}

function itemLabel(brand: PickableBrandView, item: PickableItemView, money: (cents: number) => string, texts: Texts): string {
  return item.valueType === 'FIXED_VALUE'
    ? texts.t('page', 'itemFixed', { brand: brand.name, value: money(item.faceValueCents!) })
    : texts.t('page', 'itemRange', { brand: brand.name, min: money(item.minValueCents!), max: money(item.maxValueCents!) });
}

function pickSection(brands: PickableBrandView[], remaining: number, currency: string, money: (cents: number) => string, texts: Texts): SafeHtml {
  const list = brands.map((brand) => {
    const items = brand.items.map((item) => {
      const affordable = (item.valueType === 'FIXED_VALUE' ? item.faceValueCents! : item.minValueCents!) <= remaining;
      return html`<label class="item${!affordable && ' unaffordable'}"><input type="radio" name="utid" value="${item.utid}" data-type="${item.valueType}"
 data-face="${item.faceValueCents}" data-min="${item.minValueCents}" data-max="${item.maxValueCents}"${!affordable && html` disabled`}>
<span>${itemLabel(brand, item, money, texts)}</span></label>`;
    });
    const search = `${brand.name} ${brand.items.map((i) => i.rewardName).join(' ')}`.toLowerCase();
    return html`<fieldset class="brand" data-search="${search}">
<legend>${logo(brand.name, brand.imageUrl, 'sm')}<span>${brand.name}</span></legend>${items}</fieldset>`;
  });
  return html`<section aria-labelledby="pick-title"><h2 id="pick-title">${texts.t('page', 'pickTitle')}</h2>
<form id="pick-form" data-remaining="${remaining}" data-currency="${currency}" novalidate>
<div class="field"><label for="brand-search">${texts.t('page', 'searchLabel')}</label>
<input id="brand-search" type="search" autocomplete="off" placeholder="${texts.t('page', 'searchPlaceholder')}"></div>
<div class="brands" role="group" aria-label="${texts.t('page', 'cardsGroup')}">${list}<p id="no-match" class="muted" hidden>${texts.t('page', 'noMatch')}</p></div>
<div class="field"><label for="amount">${texts.t('page', 'amount')}</label>
<input id="amount" name="amount" type="number" inputmode="decimal" step="0.01" min="0.01" max="${(remaining / 100).toFixed(2)}" aria-describedby="amount-hint" required>
<p id="amount-hint" class="muted small">${texts.t('page', 'amountHint', { currency, remaining: money(remaining) })}</p></div>
<button type="submit" class="button">${texts.t('page', 'submit')}</button>
<p id="pick-message" class="pick-message" role="alert" aria-live="assertive"></p>
</form></section>`;
}

/** A page with a title and one paragraph (a link not found, too many attempts), in the recipient's language. */
export function renderMessagePage(texts: Texts, kind: 'notFound' | 'tooMany'): string {
  const title = texts.t('page', kind === 'notFound' ? 'notFoundTitle' : 'tooManyTitle');
  const message = texts.t('page', kind === 'notFound' ? 'notFoundText' : 'tooManyText');
  return page(texts, title, html`<main><h1>${title}</h1><p>${message}</p></main>`);
}

const STYLES = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1b1f24;background:#f4f5f7}
.bar{display:flex;align-items:center;gap:12px;padding:14px 20px;background:var(--brand);color:var(--on-brand)}
.sender{font-weight:700;font-size:1.15rem}
main{max-width:720px;margin:0 auto;padding:20px 16px 48px}
h1{font-size:1.5rem;line-height:1.25;margin:8px 0 16px}
h2{font-size:1.2rem;margin:28px 0 12px}
h3{font-size:1rem;margin:0}
.muted{color:#57606a}.small{font-size:.85rem}
.message{margin:0 0 16px;padding:12px 16px;border-left:4px solid var(--brand);background:#fff;white-space:pre-line;border-radius:4px}
.amounts{display:flex;gap:12px;flex-wrap:wrap;margin:0 0 16px}
.amounts div{flex:1 1 140px;background:#fff;border-radius:8px;padding:12px 16px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.amounts dt{font-size:.85rem;color:#57606a}.amounts dd{margin:0;font-size:1.6rem;font-weight:700}
.notice{background:#fff8e1;border:1px solid #f0c36d;border-radius:8px;padding:12px 16px}
.notice-canceled,.notice-expired{background:#fdecea;border-color:#f1a7a0}
.notice-redeemed{background:#e7f6ec;border-color:#8fd3a5}
.logo{position:relative;display:inline-flex;align-items:center;justify-content:center;flex:none;border-radius:8px;overflow:hidden;background:#fff;color:#1b1f24;font-weight:700}
.logo-lg{width:44px;height:44px}.logo-sm{width:36px;height:36px;font-size:.85rem;border:1px solid #d0d7de}
.logo img{position:absolute;inset:0;width:100%;height:100%;object-fit:contain;background:#fff}
.logo img[hidden]{display:none}
.cards{list-style:none;padding:0;margin:0;display:grid;gap:12px}
.card{background:#fff;border-radius:10px;padding:16px;box-shadow:0 1px 3px rgba(0,0,0,.1)}
.card-head{display:flex;gap:12px;align-items:center;margin-bottom:8px}.card-head p{margin:0}
.credentials{margin:0}.credentials dt{font-size:.85rem;color:#57606a;margin-top:10px}.credentials dd{margin:2px 0 0}
code{font:600 1.05rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}
.copyable{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.barcode{display:block;width:100%;max-width:340px;height:72px}
.barcode-value{font-size:.85rem;font-weight:400}
.button,button{display:inline-block;border:0;border-radius:8px;padding:12px 20px;font:inherit;font-weight:700;background:var(--brand);color:var(--on-brand);text-decoration:none;cursor:pointer;min-height:44px}
.button.secondary,button.copy{background:#eef1f4;color:#1b1f24;padding:8px 14px;min-height:40px}
button:disabled{opacity:.6;cursor:progress}
:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
.pending{display:flex;align-items:center;gap:8px;margin:0}
.spinner{width:16px;height:16px;border:3px solid #d0d7de;border-top-color:var(--brand);border-radius:50%;animation:spin 1s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
@media (prefers-reduced-motion:reduce){.spinner{animation:none}}
.field{margin:12px 0}.field label{display:block;font-weight:600;margin-bottom:4px}
input[type=search],input[type=number]{width:100%;font:inherit;padding:10px 12px;border:1px solid #8c959f;border-radius:8px;background:#fff;min-height:44px}
input[readonly]{background:#f4f5f7}
.brands{max-height:26rem;overflow:auto;background:#fff;border:1px solid #d0d7de;border-radius:10px;padding:4px 12px}
.brand{border:0;border-bottom:1px solid #eaeef2;margin:0;padding:10px 0}
.brand legend{display:flex;align-items:center;gap:10px;font-weight:700;padding:0;float:left;width:100%;margin-bottom:6px}
.brand legend+*{clear:both}
.item{display:flex;align-items:center;gap:10px;padding:8px 4px;min-height:44px;cursor:pointer;border-radius:6px}
.item:hover{background:#f4f5f7}.item input{width:20px;height:20px;flex:none;accent-color:var(--brand)}
.item.unaffordable{color:#8c959f;cursor:not-allowed}
.pick-message{min-height:1.5em;font-weight:600;color:#b42318}
.pick-message.ok{color:#1a7f37}
.preview-banner{background:#1b1f24;color:#fff;padding:10px 20px;font-size:.95rem}
`;
