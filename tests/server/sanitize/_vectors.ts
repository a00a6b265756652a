/**
 * XSS and mXSS vectors for the shared sanitizer policy, each with the exact
 * output expected from DOMPurify on jsdom. Written for this project.
 *
 * @module
 */

/** One sanitizer vector. */
export interface Vector {
  /** Short description, used as the test step name. */
  name: string;
  /** Dirty HTML. */
  input: string;
  /** Exact sanitized output. */
  expected: string;
}

const REL = ' rel="noopener noreferrer nofollow"';
const IMG = 'src="/a.png" width="1" height="1"';

/** Benign markup the policy must keep as is (or only normalize). */
export const KEEP: readonly Vector[] = [
  {
    name: "paragraph with bold",
    input: "<p><b>hi</b></p>",
    expected: "<p><b>hi</b></p>",
  },
  {
    name: "image with size and alt",
    input: '<img src="/a.png" width="10" height="20" alt="x">',
    expected: '<img src="/a.png" width="10" height="20" alt="x">',
  },
  {
    name: "headings h2-h4",
    input: "<h2>T</h2><h3>U</h3><h4>V</h4>",
    expected: "<h2>T</h2><h3>U</h3><h4>V</h4>",
  },
  {
    name: "lists",
    input: "<ul><li>a</li><li>b</li></ul><ol><li>c</li></ol>",
    expected: "<ul><li>a</li><li>b</li></ul><ol><li>c</li></ol>",
  },
  {
    name: "blockquote, pre, code and escaped text",
    input:
      "<blockquote><p>q</p></blockquote><pre><code>x &lt; y &amp;&amp; z</code></pre>",
    expected:
      "<blockquote><p>q</p></blockquote><pre><code>x &lt; y &amp;&amp; z</code></pre>",
  },
  {
    name: "all inline formatting",
    input:
      "<p><strong>a</strong><em>b</em><i>c</i><u>d</u><s>e</s><strike>f</strike><del>g</del><br>h</p>",
    expected:
      "<p><strong>a</strong><em>b</em><i>c</i><u>d</u><s>e</s><strike>f</strike><del>g</del><br>h</p>",
  },
  {
    name: "https link gets rel",
    input: '<a href="https://example.com/x?y=1&amp;z=2">l</a>',
    expected: `<a href="https://example.com/x?y=1&amp;z=2"${REL}>l</a>`,
  },
  {
    name: "http link",
    input: '<a href="http://example.com/">l</a>',
    expected: `<a href="http://example.com/"${REL}>l</a>`,
  },
  {
    name: "mailto link",
    input: '<a href="mailto:ada@example.com">m</a>',
    expected: `<a href="mailto:ada@example.com"${REL}>m</a>`,
  },
  {
    name: "relative links: path, fragment, query, bare file",
    input:
      '<a href="/p#f">a</a><a href="#top">b</a><a href="?q=1">c</a><a href="page.html">d</a>',
    expected:
      `<a href="/p#f"${REL}>a</a><a href="#top"${REL}>b</a><a href="?q=1"${REL}>c</a><a href="page.html"${REL}>d</a>`,
  },
  {
    name: "absolute image at the size cap",
    input: '<img src="https://cdn.example.com/a.jpg" width="10000" height="1">',
    expected:
      '<img src="https://cdn.example.com/a.jpg" width="10000" height="1">',
  },
  {
    name: "http image",
    input: '<img src="http://example.com/a.gif" width="3" height="4" alt="">',
    expected:
      '<img src="http://example.com/a.gif" width="3" height="4" alt="">',
  },
  {
    name: "image inside a link",
    input: `<a href="/x"><img ${IMG}></a>`,
    expected: `<a href="/x"${REL}><img ${IMG}></a>`,
  },
  {
    name: "upper-case tags and attributes are normalized",
    input: '<P><B>Hi</B></P><IMG SRC="/a.png" WIDTH="5" HEIGHT="6">',
    expected: '<p><b>Hi</b></p><img src="/a.png" width="5" height="6">',
  },
  {
    // DOMPurify returns input without "<" unchanged: no tag can form.
    name: "text without markup is returned as is",
    input: "Tom & Jerry > 3",
    expected: "Tom & Jerry > 3",
  },
  {
    name: "text with markup is escaped",
    input: "<p>Tom & Jerry > 3</p>",
    expected: "<p>Tom &amp; Jerry &gt; 3</p>",
  },
  {
    name: "escaped markup stays text",
    input: "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
    expected: "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
  },
  {
    name: "fullwidth brackets are just text",
    input: "\uff1cscript\uff1ealert(1)\uff1c/script\uff1e",
    expected: "\uff1cscript\uff1ealert(1)\uff1c/script\uff1e",
  },
  {
    name: "surrounding whitespace in href is trimmed",
    input: '<a href="  https://ok.example/  ">x</a>',
    expected: `<a href="https://ok.example/"${REL}>x</a>`,
  },
  {
    name: "empty input",
    input: "",
    expected: "",
  },
];

/** Unwanted but harmless markup: the element goes, its text stays. */
export const UNWRAP: readonly Vector[] = [
  {
    // Policy change: unwrapped blocks keep their words apart.
    name: "h1, h5, h6 are unwrapped, with line breaks between",
    input: "<h1>A</h1><h5>B</h5><h6>C</h6>",
    expected: "A<br>B<br>C",
  },
  {
    name: "div and span are unwrapped",
    input: "<div>d<span>s</span></div>",
    expected: "ds",
  },
  {
    // Policy change: tables are kept (the parser adds the tbody).
    name: "table is kept",
    input: "<table><tr><td>x</td></tr></table>",
    expected: "<table><tbody><tr><td>x</td></tr></tbody></table>",
  },
  {
    name: "marquee with handler",
    input: "<marquee onstart=alert(1)>x</marquee>",
    expected: "x",
  },
  {
    name: "custom element with handler and autofocus",
    input: "<x-ss onfocus=alert(1) autofocus tabindex=1>t</x-ss>",
    expected: "t",
  },
  {
    name: "details with ontoggle",
    input: "<details open ontoggle=alert(1)><summary>s</summary>d</details>",
    expected: "s<br>d", // policy change: words kept apart
  },
  {
    name: "button formaction",
    input: '<button formaction="javascript:alert(1)">X</button>',
    expected: "X",
  },
];

/** Attacks: the exact cleaned output. */
export const ATTACKS: readonly Vector[] = [
  // Scripts and event handlers
  { name: "script element", input: "<script>alert(1)</script>", expected: "" },
  {
    name: "script with src",
    input: "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    expected: "",
  },
  {
    name: "unclosed script",
    input: "<p>x</p><script>alert(1)",
    expected: "<p>x</p>",
  },
  {
    name: "img onerror without size",
    input: "<img src=x onerror=alert(1)>",
    expected: "",
  },
  {
    name: "img with size keeps, onerror goes",
    input: `<img ${IMG} onerror="alert(1)">`,
    expected: `<img ${IMG}>`,
  },
  { name: "svg onload", input: "<svg onload=alert(1)>", expected: "" },
  {
    name: "svg script",
    input: "<svg><script>alert(1)</script></svg>",
    expected: "",
  },
  { name: "body onload", input: "<body onload=alert(1)>b", expected: "b" },
  {
    name: "nested body tags merge into the root",
    input:
      "<p>a</p><body onload=alert(1)><p>b</p><svg><body onfocus=alert(1)>c",
    expected: "<p>a</p><p>b</p>c",
  },
  {
    name: "paragraph handlers in mixed case",
    input: '<p onmouseover="alert(1)" ONCLICK=x OnFocus=y>hi</p>',
    expected: "<p>hi</p>",
  },
  {
    name: "slash as attribute separator",
    input: '<a href="/x"/onclick=alert(1)>y</a>',
    expected: `<a href="/x"${REL}>y</a>`,
  },
  {
    name: "video source onerror",
    input: "<video><source onerror=alert(1)></video>",
    expected: "",
  },
  {
    name: "audio onerror",
    input: "<audio src=x onerror=alert(1)>",
    expected: "",
  },
  {
    name: "input type image",
    input: "<input type=image src=x onerror=alert(1)>",
    expected: "",
  },
  // Frames, plugins, forms, document-level elements
  {
    name: "iframe javascript src",
    input: '<iframe src="javascript:alert(1)"></iframe>',
    expected: "",
  },
  {
    name: "iframe srcdoc",
    input: '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
    expected: "",
  },
  {
    name: "object data",
    input: '<object data="javascript:alert(1)"></object>',
    expected: "",
  },
  {
    name: "embed src",
    input: '<embed src="javascript:alert(1)">',
    expected: "",
  },
  {
    name: "form action",
    input:
      '<form action="javascript:alert(1)"><input type=submit value=go></form>',
    expected: "",
  },
  {
    name: "meta refresh",
    input: '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    expected: "",
  },
  {
    name: "base href",
    input: '<base href="javascript:alert(1)//">',
    expected: "",
  },
  {
    name: "link stylesheet",
    input: '<link rel=stylesheet href="javascript:alert(1)">',
    expected: "",
  },
  // Styles
  {
    name: "style element",
    input: "<style>@import 'javascript:alert(1)';</style>",
    expected: "",
  },
  {
    name: "style attribute url()",
    input: '<p style="background:url(javascript:alert(1))">x</p>',
    expected: "<p>x</p>",
  },
  {
    name: "style expression()",
    input: '<div style="width: expression(alert(1))">x</div>',
    expected: "x",
  },
  // javascript: and friends in href, with obfuscation
  {
    name: "javascript href",
    input: '<a href="javascript:alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "mixed-case scheme",
    input: '<a href="JaVaScRiPt:alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "decimal entities",
    input:
      '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "hex entities without semicolons",
    input:
      '<a href="&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "tab inside scheme",
    input: '<a href="java&#x09;script:alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "newline inside scheme",
    input: '<a href="java&#x0A;script:alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "leading space entity",
    input: '<a href="&#x20;javascript:alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "leading control char",
    input: '<a href="&#x01;javascript:alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "named entity colon",
    input: '<a href="javascript&colon;alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "zero-width space in scheme",
    input: '<a href="jav&#x200B;ascript:alert(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "data: href",
    input:
      '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "vbscript href",
    input: '<a href="vbscript:msgbox(1)">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "protocol-relative href",
    input: '<a href="//evil.example/">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "backslash protocol-relative href",
    input: '<a href="/\\evil.example/">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "file href",
    input: '<a href="file:///etc/passwd">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "ftp href",
    input: '<a href="ftp://example.com/">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "tel href",
    input: '<a href="tel:+123">x</a>',
    expected: `<a href="tel:+123"${REL}>x</a>`,
  },
  {
    name: "target=_blank stays, rel=opener is replaced",
    input: '<a href="https://ok.example/" target="_blank" rel="opener">x</a>',
    expected: `<a href="https://ok.example/" target="_blank"${REL}>x</a>`,
  },
  {
    name: "other targets go",
    input: '<a href="/a" target="_top">x</a><a href="/b" target="evil">y</a>',
    expected: `<a href="/a"${REL}>x</a><a href="/b"${REL}>y</a>`,
  },
  {
    name: "target goes with a refused href",
    input: '<a href="javascript:alert(1)" target="_blank">x</a>',
    expected: "<a>x</a>",
  },
  {
    name: "link attributes beyond href go",
    input:
      '<a href="/a" ping="https://evil.example/" style="x" class="y" id="z" data-x="1" aria-label="l" title="t">x</a>',
    expected: `<a href="/a"${REL}>x</a>`,
  },
  {
    name: "quote in href is escaped on output",
    input:
      '<a href="https://example.com/&quot;onmouseover=&quot;alert(1)">x</a>',
    expected:
      `<a href="https://example.com/&quot;onmouseover=&quot;alert(1)"${REL}>x</a>`,
  },
  // Images
  { name: "img without size", input: '<img src="/a.png">', expected: "" },
  {
    name: "img without height",
    input: '<img src="/a.png" width="10">',
    expected: "",
  },
  {
    name: "img width with unit",
    input: '<img src="/a.png" width="10px" height="10">',
    expected: "",
  },
  {
    name: "img width 0",
    input: '<img src="/a.png" width="0" height="10">',
    expected: "",
  },
  {
    name: "img width -1",
    input: '<img src="/a.png" width="-1" height="10">',
    expected: "",
  },
  {
    name: "img width +1",
    input: '<img src="/a.png" width="+1" height="10">',
    expected: "",
  },
  {
    name: "img fractional width",
    input: '<img src="/a.png" width="1.5" height="10">',
    expected: "",
  },
  {
    name: "img leading zero",
    input: '<img src="/a.png" width="010" height="10">',
    expected: "",
  },
  {
    name: "img exponent",
    input: '<img src="/a.png" width="1e3" height="10">',
    expected: "",
  },
  {
    name: "img over the cap",
    input: '<img src="/a.png" width="10001" height="10">',
    expected: "",
  },
  {
    name: "img padded width",
    input: '<img src="/a.png" width=" 10" height="10">',
    expected: "",
  },
  {
    name: "img percent height",
    input: '<img src="/a.png" width="10" height="50%">',
    expected: "",
  },
  {
    name: "img data: src",
    input:
      '<img src="data:image/png;base64,iVBORw0KGgo=" width="1" height="1">',
    expected: "",
  },
  {
    name: "img data: svg src",
    input:
      '<img src="data:image/svg+xml,&lt;svg onload=alert(1)&gt;" width="1" height="1">',
    expected: "",
  },
  {
    name: "img blob: src",
    input: '<img src="blob:https://a.example/1" width="1" height="1">',
    expected: "",
  },
  {
    name: "img javascript: src",
    input: '<img src="javascript:alert(1)" width="1" height="1">',
    expected: "",
  },
  {
    name: "img protocol-relative src",
    input: '<img src="//evil.example/a.png" width="1" height="1">',
    expected: "",
  },
  {
    name: "img empty src",
    input: '<img src="" width="1" height="1">',
    expected: "",
  },
  { name: "img no src", input: '<img width="1" height="1">', expected: "" },
  {
    name: "img srcset goes",
    input: `<img ${IMG} srcset="javascript:alert(1) 1x, data:x 2x">`,
    expected: `<img ${IMG}>`,
  },
  {
    // Only loading="lazy" is admitted: "eager" goes with the rest.
    name: "img extra attributes go",
    input:
      `<img ${IMG} style="x" class="c" id="i" title="t" loading="eager" usemap="#m" ismap>`,
    expected: `<img ${IMG}>`,
  },
  {
    // DOMPurify blanks `is` instead of removing it, so that the serializer
    // cannot restore the custom element name: an empty `is` is inert.
    name: "img is attribute is blanked",
    input: `<img ${IMG} is="x-evil">`,
    expected: `<img ${IMG} is="">`,
  },
  {
    name: "img src whitespace is trimmed",
    input: '<img src="  /a.png  " width="1" height="1">',
    expected: `<img ${IMG}>`,
  },
  {
    name: "<image> is parsed as img",
    input: `<image ${IMG}>`,
    expected: `<img ${IMG}>`,
  },
  {
    name: "picture and source go, img stays",
    input:
      `<picture><source srcset="https://evil.example/x"><img ${IMG}></picture>`,
    expected: `<img ${IMG}>`,
  },
  {
    name: "quotes in alt cannot break out",
    input: `<img ${IMG} alt='x" onerror="alert(1)'>`,
    expected: `<img ${IMG} alt="x&quot; onerror=&quot;alert(1)">`,
  },
  {
    name: "unquoted attributes with trailing slashes",
    input: "<img src=/a.png width=1 height=1 alt=x onerror=alert(1)//>",
    expected: `<img ${IMG} alt="x">`,
  },
  {
    name: "tag cut off at end of input",
    input: `<p>a</p><img ${IMG}`,
    expected: "<p>a</p>",
  },
  // mXSS, namespaces, raw-text elements, comments
  {
    name: "noscript title breakout",
    input: '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    expected: "<p></p>",
  },
  {
    name: "template content",
    input: "<template><script>alert(1)</script></template>",
    expected: "",
  },
  {
    name: "math mglyph style",
    input: "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    expected: "",
  },
  {
    name: "svg p style namespace confusion",
    input: '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">',
    expected: '<p></p>"&gt;',
  },
  {
    name: "math mi link",
    input: '<math><mi><a href="javascript:alert(1)">x</a></mi></math>',
    expected: "",
  },
  {
    name: "svg foreignObject img",
    input:
      "<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>",
    expected: "",
  },
  {
    name: "form math mglyph nesting",
    input:
      "<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>",
    expected: "",
  },
  {
    name: "svg style img",
    input: "<svg><style><img src=x onerror=alert(1)></style></svg>",
    expected: "",
  },
  {
    name: "math style img",
    input: "<math><style><img src=x onerror=alert(1)></style></math>",
    expected: "",
  },
  {
    name: "svg image href",
    input:
      '<svg><image href="javascript:alert(1)" width="1" height="1"/></svg>',
    expected: "",
  },
  {
    name: "svg a xlink:href",
    input: '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    expected: "",
  },
  {
    name: "select template style",
    input:
      "<select><template><style><img src=x onerror=alert(1)></style></template></select>",
    expected: "",
  },
  {
    name: "noembed title breakout",
    input:
      '<noembed><img title="</noembed><img src onerror=alert(1)>"></noembed>',
    expected: '"&gt;',
  },
  {
    name: "title raw text",
    input: "<title><img src=x onerror=alert(1)></title>",
    expected: "",
  },
  {
    name: "xmp raw text",
    input: "<xmp><img src=x onerror=alert(1)></xmp>",
    expected: "",
  },
  {
    name: "textarea raw text",
    input: "<textarea><img src=x onerror=alert(1)></textarea>",
    expected: "&lt;img src=x onerror=alert(1)&gt;",
  },
  {
    name: "plaintext",
    input: "<plaintext><img src=x onerror=alert(1)>",
    expected: "",
  },
  {
    name: "empty comment opener",
    input: "<!--><img src=x onerror=alert(1)>-->",
    expected: "--&gt;",
  },
  {
    name: "comment with markup",
    input: "<!-- <img src=x onerror=alert(1)> -->",
    expected: "",
  },
  {
    name: "comment inside paragraph",
    input: "<p>a<!--b--></p>",
    expected: "<p>a</p>",
  },
  {
    name: "processing instruction",
    input: "<?xml-stylesheet href=x ?><p>a</p>",
    expected: "<p>a</p>",
  },
  {
    name: "CDATA in HTML is a bogus comment",
    input: "<![CDATA[<img src=x onerror=alert(1)>]]>",
    expected: "]]&gt;",
  },
  {
    name: "paragraph title breakout",
    input: '<p title="</p><img src=x onerror=alert(1)>">x</p>',
    expected: "<p>x</p>",
  },
  {
    name: "split script tag",
    input: "<scr<script>ipt>alert(1)</scr</script>ipt>",
    expected: "ipt&gt;alert(1)ipt&gt;",
  },
  {
    name: "double bracket script",
    input: "<<script>script>alert(1)<</script>/script>",
    expected: "&lt;/script&gt;",
  },
  {
    name: "NUL in tag name",
    input: "<scr\u0000ipt>alert(1)</scr\u0000ipt>",
    expected: "alert(1)",
  },
  {
    name: "DOM clobbering names",
    input: '<a id="cookie" name="location" href="/x">x</a><img name="body" ' +
      IMG + ">",
    expected: `<a href="/x"${REL}>x</a><img ${IMG}>`,
  },
];

/** Every vector. */
export const VECTORS: readonly Vector[] = [...KEEP, ...UNWRAP, ...ATTACKS];
