import { dirname, join } from 'node:path';
import PDFDocument from 'pdfkit';

/**
 * Money documents as PDF (docs/statements.md): statements and receipts. Everything they need is on
 * this machine: the DejaVu fonts of the `dejavu-fonts-ttf` package, embedded (as subsets) in every
 * document, so a reader shows the same glyphs anywhere, and nothing is fetched, not even the
 * account's logo (a URL: it is named, not drawn).
 */
const FONT_DIR = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const REGULAR = join(FONT_DIR, 'DejaVuSans.ttf');
const BOLD = join(FONT_DIR, 'DejaVuSans-Bold.ttf');

/** Who the document is from: the account's name, and its sender branding as e-mails show it. */
export interface PdfBranding {
  accountName: string;
  /** The sender name of e-mails; null falls back to the account name, as e-mails do. */
  senderName: string | null;
  /** `#RRGGBB`, or null for the default colour. */
  brandColor: string | null;
}

export interface PdfLine {
  label: string;
  value: string;
  /** Drawn bold, with a rule above: a total. */
  total?: boolean;
}

export interface PdfContent {
  title: string;
  /** Lines under the title (the period, the currency), before the figures. */
  subtitle: string[];
  /** Label and value pairs, in order. */
  lines: PdfLine[];
  /** Small print at the foot of the page. */
  footer: string[];
}

const DEFAULT_COLOR = '#1A73E8';
const MARGIN = 56;

/** One A4 page: a band in the brand colour with the sender's name, then the content. */
export function renderPdf(branding: PdfBranding, content: PdfContent): Promise<Buffer> {
  const sender = branding.senderName ?? branding.accountName;
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    font: REGULAR,
    info: { Title: content.title, Author: sender, Creator: 'Rewards', Producer: 'Rewards' },
  });
  doc.registerFont('regular', REGULAR);
  doc.registerFont('bold', BOLD);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const width = doc.page.width - 2 * MARGIN;
  const color = branding.brandColor ?? DEFAULT_COLOR;
  doc.rect(0, 0, doc.page.width, 84).fill(color);
  doc.fillColor(readableOn(color)).font('bold').fontSize(20).text(sender, MARGIN, 30, { width, lineBreak: false, ellipsis: true });
  doc.fillColor('#000000');

  doc.font('bold').fontSize(16).text(content.title, MARGIN, 116, { width });
  doc.font('regular').fontSize(11).moveDown(0.3);
  doc.text(`Account: ${branding.accountName}`, { width });
  for (const line of content.subtitle) doc.text(line, { width });
  doc.moveDown(1.2);

  const valueWidth = 180;
  for (const line of content.lines) {
    const y = doc.y;
    if (line.total) {
      doc.moveTo(MARGIN, y - 3).lineTo(MARGIN + width, y - 3).lineWidth(0.7).strokeColor('#888888').stroke();
    }
    doc.font(line.total ? 'bold' : 'regular').fontSize(11);
    doc.text(line.label, MARGIN, y, { width: width - valueWidth - 8, lineBreak: false, ellipsis: true });
    doc.text(line.value, MARGIN + width - valueWidth, y, { width: valueWidth, align: 'right', lineBreak: false });
    doc.x = MARGIN;
    doc.y = y + 20;
  }

  doc.moveDown(2);
  doc.font('regular').fontSize(8).fillColor('#555555');
  for (const line of content.footer) doc.text(line, MARGIN, doc.y, { width });
  doc.end();
  return done;
}

/** Black or white, whichever reads on `hex`. */
function readableOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.55 ? '#000000' : '#FFFFFF';
}
