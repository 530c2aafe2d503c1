/** Files the bundle carries as text (wrangler.toml `[[rules]] type = "Text"`). */
declare module '*.py' {
  const text: string;
  export default text;
}
declare module '*.R' {
  const text: string;
  export default text;
}
