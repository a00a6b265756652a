/**
 * The demo's pages, server-rendered with Preact: the home page (record
 * `pages:home`) and the login page.
 *
 * @module
 */
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import {
  CmsField,
  CmsList,
  CmsScript,
  scriptJson,
} from "../fresh/components.tsx";
import { contentVersion } from "../core/version.ts";
import type { Editor } from "../server/http/mod.ts";
import type { PageConfig } from "../server/app/mod.ts";
import { ALLOWLIST, HERO_PLACEHOLDER, type HomePage } from "./content.ts";
import { EDIT_STYLES, STYLES } from "./styles.ts";

/** Renders a full HTML document. */
export function renderDocument(vnode: VNode): string {
  return "<!DOCTYPE html>" + renderToString(vnode);
}

function Layout(props: {
  title: string;
  editor: Editor | null;
  editing?: boolean;
  /** The page's language (default `en`). */
  lang?: string;
  /** The page's path (default `/`): where Edit and View lead. */
  path?: string;
  children: ComponentChildren;
}): VNode {
  const { editor, editing } = props;
  const path = props.path ?? "/";
  return (
    <html lang={props.lang ?? "en"}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLES }} />
        {editing && <style dangerouslySetInnerHTML={{ __html: EDIT_STYLES }} />}
      </head>
      <body>
        <header class="site-header">
          <div class="wrap header-row">
            <a class="brand" href="/">
              <span class="brand-mark" aria-hidden="true">◆</span> inplace
            </a>
            <nav class="nav">
              {editor
                ? (
                  <>
                    <span class="who">Signed in as {editor.name}</span>
                    {editing
                      ? <a class="btn" href={path}>View as visitor</a>
                      : (
                        <a class="btn btn-primary" href={`${path}?edit`}>
                          Edit this page
                        </a>
                      )}
                    <form
                      method="post"
                      action="/logout"
                      class="inline"
                      data-clear-drafts
                    >
                      <button type="submit" class="btn btn-quiet">
                        Log out
                      </button>
                    </form>
                  </>
                )
                : <a class="btn" href="/login">Log in</a>}
            </nav>
          </div>
        </header>
        {props.children}
        <footer class="site-footer">
          <div class="wrap">
            A demo host for <code>@inplace/cms</code>: Preact on{" "}
            <code>Deno.serve</code>, content in Deno KV.
          </div>
        </footer>
      </body>
    </html>
  );
}

/** What the home page needs. */
export interface HomeProps {
  page: HomePage;
  editor: Editor | null;
  editing: boolean;
  clientSrc: string;
  drawerSrc: string;
  /** The response's CSP nonce, for the client's loader script. */
  nonce?: string;
  /** Public base URL of uploaded media (for `srcset` in the editor). */
  mediaBase?: string;
  /** Publish endpoint (draft mode): the client offers Publish and Discard. */
  publish?: string;
  /** Schedule listing (a scheduler runs): the client offers Publish at…. */
  schedule?: string;
  /** A preview link: drafts shown read-only, with a banner. */
  preview?: boolean;
  /** Comments endpoint (review on): editors comment on the page's text. */
  comments?: string;
  /** Review-links endpoint (review on). */
  review?: string;
  /**
   * A review link: the reviewer's page config. The drafts are shown with
   * field markers (to comment on) and the reviewer's client, with a banner.
   */
  reviewer?: PageConfig;
  /** The content declaration (with the site's locales, if any). */
  content?: typeof ALLOWLIST;
  /** The page's locale, on a site with locales. */
  locale?: string;
  /** The site's locales and their home pages' URLs (the edit bar's switcher). */
  locales?: { tag: string; url: string }[];
  /** The page's path (`/`, `/de/`): where Edit and its exit lead. */
  path?: string;
}

/** The home page: `pages:home` with title, summary, body and features. */
export function HomePageView(props: HomeProps): VNode {
  const { page, editor, locale } = props;
  const content = props.content ?? ALLOWLIST;
  const path = props.path ?? "/";
  // A reviewer's page carries the field markers, as edit mode does.
  const editing = props.editing || props.reviewer !== undefined;
  return (
    <Layout
      title={page.title}
      editor={editor}
      editing={editing}
      lang={locale}
      path={path}
    >
      <main class="wrap page">
        {props.preview && (
          <p class="preview-banner" role="note" data-preview>
            Preview of unpublished changes. Visitors do not see them yet.
          </p>
        )}
        {props.reviewer && (
          <p class="preview-banner" role="note" data-review>
            Review of unpublished changes: select text to comment, then approve
            or ask for changes.
          </p>
        )}
        <article>
          <CmsField
            as="h1"
            class="title"
            field="pages:home:title"
            value={page.title}
            editing={editing}
            locale={locale}
            from={page.from?.title}
          />
          {
            /* The hero image field: shown when set; editors get an empty
             * image (its alt says what to do) to click or drop onto. */
            (page.hero || editing) && (
              <CmsField
                content={content}
                locale={locale}
                field="pages:home:hero"
                value={page.hero}
                from={page.from?.hero}
                class="hero"
                alt={page.hero ? "" : "Add a hero image"}
                {...page.hero ? {} : { src: HERO_PLACEHOLDER }}
                editing={editing}
              />
            )
          }
          <div
            class="lead"
            id="page-summary"
            dangerouslySetInnerHTML={{ __html: page.summary }}
          />
          <CmsField
            class="prose"
            field="pages:home:body"
            value={page.body}
            rich
            editing={editing}
            locale={locale}
            from={page.from?.body}
          />
        </article>
        <section class="features" aria-labelledby="features-heading">
          <h2 id="features-heading">Features</h2>
          <CmsList
            content={content}
            locale={locale}
            field="pages:home:features"
            value={page.features}
            from={page.from?.features}
            editing={editing}
          />
        </section>
      </main>
      {props.reviewer && (
        <CmsScript
          editing
          src={props.clientSrc}
          nonce={props.nonce}
          config={props.reviewer}
        />
      )}
      {props.editing && (
        <>
          <CmsScript
            editing
            src={props.clientSrc}
            nonce={props.nonce}
            config={{
              editor: editor?.name ?? "",
              save: "/api/cms/save",
              media: "/api/cms/media",
              history: "/api/cms/history",
              library: "/api/cms/media/library",
              settings: true,
              events: "/api/cms/events",
              exit: path,
              ...props.mediaBase ? { mediaBase: props.mediaBase } : {},
              ...props.publish ? { publish: props.publish } : {},
              ...props.schedule ? { schedule: props.schedule } : {},
              ...props.comments ? { comments: props.comments } : {},
              ...props.review ? { review: props.review } : {},
              ...locale && props.locales
                ? { locale, locales: props.locales }
                : {},
            }}
          />
          <script
            type="application/json"
            id="demo-settings"
            dangerouslySetInnerHTML={{
              __html: scriptJson({
                client: props.clientSrc,
                save: "/api/cms/save",
                media: "/api/cms/media",
                field: "pages:home:summary",
                value: page.summary,
                version: contentVersion(page.summary),
              }),
            }}
          />
        </>
      )}
      {editor && <script type="module" src={props.drawerSrc} />}
    </Layout>
  );
}

/** The login page, with an optional error. */
export function LoginPageView(
  props: { error?: string; next: string },
): VNode {
  return (
    <Layout title="Log in" editor={null}>
      <main class="wrap page narrow">
        <form method="post" action="/login" class="card login">
          <h1>Editor login</h1>
          <p class="muted">
            The demo has one editor. The password is printed by{" "}
            <code>deno task dev</code> unless you set{" "}
            <code>CMS_EDITOR_PASSWORD</code>.
          </p>
          {props.error && <p class="error" role="alert">{props.error}</p>}
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
            autofocus
          />
          <input type="hidden" name="next" value={props.next} />
          <button type="submit" class="btn btn-primary">Log in</button>
        </form>
      </main>
    </Layout>
  );
}

/** A small page for 403/404 answers. */
export function MessagePageView(
  props: { title: string; message: string },
): VNode {
  return (
    <Layout title={props.title} editor={null}>
      <main class="wrap page narrow">
        <h1>{props.title}</h1>
        <p>{props.message}</p>
        <p>
          <a href="/">Back to the home page</a>
        </p>
      </main>
    </Layout>
  );
}
