import { DataSource } from 'typeorm';
import { RecipientClient, tokenOf } from '../support/redemption';
import { CatalogPicks, catalogPicks, choiceReward, fixedReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

const money = (locale: string, cents: number, currency = 'USD') => new Intl.NumberFormat(locale, { style: 'currency', currency }).format(cents / 100);

describe("the recipient's language (recipient.language)", () => {
  const smtp = new SmtpSink();
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;
  let picks: CatalogPicks;
  let recipientClient: RecipientClient;

  beforeAll(async () => {
    t = await startTestApp({ env: { SMTP_URL: await smtp.start(), MAIL_FROM: 'Rewards <rewards@mail.example>' } });
    worker = await startTestWorker(t);
    m = await seedMerchant(t, { name: 'Acme Inc' });
    await fund(t, m, 100_000);
    picks = await catalogPicks(t, m.key);
    recipientClient = new RecipientClient(t);
  });
  afterAll(async () => {
    await worker?.close();
    await t.close();
    await smtp.stop();
  });

  it('fr: the reward shows the language, and the e-mail arrives over SMTP in French with Content-Language: fr', async () => {
    const to = recipient({ firstName: 'Amélie', language: 'fr' });
    const res = await t.api
      .as(m.key)
      .post('/v1/rewards', choiceReward(5_000, { recipient: to, message: 'Thank you, as written', expiresAt: '2030-12-31T12:00:00Z' }));
    expect(res.status).toBe(201);
    expect(res.body.reward.recipientLanguage).toBe('fr');
    expect((await t.api.as(m.key).get(`/v1/rewards/${res.body.reward.id}`)).body.reward.recipientLanguage).toBe('fr');

    const mail = await smtp.waitFor((mail) => mail.to.includes(to.email));
    expect(mail.headers['content-language']).toBe('fr');
    const value = money('fr-FR', 5_000);
    expect(mail.subject).toBe(`Acme Inc vous a envoyé une récompense de ${value}`);
    expect(mail.text).toContain('Bonjour Amélie,');
    expect(mail.text).toContain(`Choisir vos cartes cadeaux\u00a0: ${res.body.redemptionUrl}`);
    // The recipient's zone is unknown: the expiry's day and time in UTC, the zone named, in the text and the HTML.
    expect(mail.text).toContain('À utiliser au plus tard le 31 décembre 2030 à 12:00 UTC.');
    expect(mail.html).toContain('À utiliser au plus tard le 31 décembre 2030 à 12:00 UTC.');
    // The merchant's message as written, not translated.
    expect(mail.text).toContain('Thank you, as written');
    expect(mail.html).toContain('<html lang="fr">');
    expect(mail.html).toContain('Ne partagez pas ce lien\u00a0: toute personne');
    expect(mail.html).not.toMatch(/sent you|Keep this link/);
  });

  it('de: a FIXED card e-mail in German, and the page in German whatever the browser asks for', async () => {
    const to = recipient({ firstName: 'Jürgen', language: 'de' });
    const res = await t.api.as(m.key).post('/v1/rewards', fixedReward(picks.fixedUsd, { recipient: to }));
    expect(res.status).toBe(201);
    const mail = await smtp.waitFor((mail) => mail.to.includes(to.email));
    expect(mail.headers['content-language']).toBe('de');
    expect(mail.subject).toBe(`Acme Inc hat Ihnen eine Geschenkkarte von ${res.body.reward.brandName} im Wert von ${money('de-DE', picks.fixedUsd.valueCents)} geschickt`);
    expect(mail.text).toContain('Hallo Jürgen,');
    expect(mail.text).toContain('Geschenkkarte ansehen');
    expect(mail.html).toContain('<html lang="de">');

    const page = await recipientClient.request('GET', `/r/${tokenOf(res.body.redemptionUrl)}`, undefined, { 'Accept-Language': 'fr-FR,fr;q=0.9' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html lang="de">');
    expect(page.body).toContain('Hallo Jürgen, Acme Inc hat Ihnen eine Geschenkkarte');
    expect(page.headers.get('content-language')).toBe('de');
  });

  it('without a language: English e-mail (Content-Language: en), and the page follows Accept-Language among those it speaks', async () => {
    const to = recipient();
    const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(2_000, { recipient: to }));
    expect(res.status).toBe(201);
    expect(res.body.reward.recipientLanguage).toBeNull();
    const mail = await smtp.waitFor((mail) => mail.to.includes(to.email));
    expect(mail.headers['content-language']).toBe('en');
    expect(mail.subject).toBe('Acme Inc sent you a $20.00 reward');

    const token = tokenOf(res.body.redemptionUrl);
    const page = (acceptLanguage?: string) =>
      recipientClient.request('GET', `/r/${token}`, undefined, acceptLanguage ? { 'Accept-Language': acceptLanguage } : {});
    const spanish = await page('es-MX,es;q=0.9,en;q=0.5');
    expect(spanish.body).toContain('<html lang="es">');
    expect(spanish.body).toContain(`¡Hola, Ada! Acme Inc te ha enviado una recompensa por valor de ${money('es-ES', 2_000)}`);
    expect(spanish.headers.get('vary')).toMatch(/Accept-Language/i);
    expect((await page('ja,nl;q=0.8')).body).toContain('<html lang="nl">');
    expect((await page('ja')).body).toContain('<html lang="en">');
    expect((await page()).body).toContain('<html lang="en">');
  });

  it('an unknown language, or one spelt otherwise, is 400 on a single send and fails its item in a bulk', async () => {
    for (const language of ['ja', 'FR', 'fr-FR', '', 7]) {
      const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { recipient: recipient({ language }) }));
      expect(res.status).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain('recipient.language');
    }
    const bulk = await t.api.as(m.key).post('/v1/rewards/bulk', {
      rewards: [choiceReward(1_000, { recipient: recipient({ language: 'xx' }) }), choiceReward(1_000, { recipient: recipient({ language: 'pt' }) })],
    });
    expect(bulk.status).toBe(207);
    expect(bulk.body.results[0]).toMatchObject({ ok: false, error: expect.stringMatching(/^bad_request: .*language/) });
    expect(bulk.body.results[1].ok).toBe(true);
    const [row] = await t.app.get(DataSource).query(`SELECT recipient_language FROM rewards WHERE id = $1`, [bulk.body.results[1].rewardId]);
    expect(row.recipient_language).toBe('pt');
  });

  it('the unknown-link page follows Accept-Language too', async () => {
    const res = await recipientClient.request('GET', `/r/${'x'.repeat(43)}`, undefined, { 'Accept-Language': 'it' });
    expect(res.status).toBe(404);
    expect(res.body).toContain('<html lang="it">');
    expect(res.body).toContain('Link non trovato');
  });
});
