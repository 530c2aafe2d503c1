/** Files a researcher chooses on the dashboard, read in the browser before they are sent. */

/** The JSON object in `file`; `notJson` names the error when it is not JSON. */
export async function readJsonFile(file: File, notJson: (name: string) => string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await file.text()) as Record<string, unknown>;
  } catch {
    throw new Error(notJson(file.name));
  }
}

/** A file's bytes as base64, in slices so a large CSV never overflows the argument list. */
export async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
