/** One part of a language's texts (web/i18n/parts.ts), cut from its JSON file by scripts/lib/text-parts-plugin.ts. */
declare module '*.json?part=shell' {
  const texts: Record<string, object>;
  export default texts;
}
declare module '*.json?part=screens' {
  const texts: Record<string, object>;
  export default texts;
}
