import { html, joinHtml, trustedHtml, type SafeHtml } from './html-template';

describe('html template', () => {
  it('escapes every interpolated string: < > & " and \'', () => {
    const name = `<script>alert("x")</script> & 'you'`;
    expect(String(html`<p title="${name}">${name}</p>`)).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;you&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;you&#39;</p>',
    );
  });

  it('keeps the literal parts of the template as written', () => {
    expect(String(html`<a href="/x?a=1&b=2">'ok'</a>`)).toBe(`<a href="/x?a=1&b=2">'ok'</a>`);
  });

  it('inserts nested fragments as markup, escaping their values once and only once', () => {
    const item = (text: string): SafeHtml => html`<li>${text}</li>`;
    const list = html`<ul>${item('a & b')}</ul>`;
    expect(String(html`<div>${list}</div>`)).toBe('<div><ul><li>a &amp; b</li></ul></div>');
  });

  it('escapes a string that looks like markup: only fragments are markup', () => {
    const already = String(html`<b>${'&'}</b>`);
    expect(String(html`${already}`)).toBe('&lt;b&gt;&amp;amp;&lt;/b&gt;');
  });

  it('joins arrays, escaping strings and keeping fragments', () => {
    expect(String(html`<ul>${['<a>', html`<li>${'<b>'}</li>`, ['c', html`<hr>`]]}</ul>`)).toBe('<ul>&lt;a&gt;<li>&lt;b&gt;</li>c<hr></ul>');
    expect(String(joinHtml(['a<', html`<br>`], '\n'))).toBe('a&lt;\n<br>');
  });

  it('writes numbers, and nothing for null, undefined or false', () => {
    const missing = (value: string | null) => value;
    const shown = (yes: boolean) => yes && html`<i>`;
    expect(String(html`${12}|${missing(null)}|${undefined}|${shown(false)}|${shown(true)}|${0}`)).toBe('12||||<i>|0');
  });

  it('takes trusted constants as they are', () => {
    expect(String(html`<style>${trustedHtml('body{font-family:"Segoe UI"}a>b{}')}</style>`)).toBe('<style>body{font-family:"Segoe UI"}a>b{}</style>');
  });
});
