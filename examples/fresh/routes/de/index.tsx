// The German home page: the same page; the middleware sets the locale.
export { default, handler } from "../index.tsx";
