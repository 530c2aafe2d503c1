/** A text file imported whole by Vite's `?raw` suffix (the tests read documentation pages this way in workerd, which has no file system). */
declare module '*.md?raw' {
  const text: string;
  export default text;
}
