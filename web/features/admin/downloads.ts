/**
 * Saves an export the Worker streams back: the file name comes from Content-Disposition, else the
 * export's base name plus today's date (part 2 §7).
 */
export function fileNameFrom(disposition: string | null, base: string, extension: string): string {
  const match = disposition?.match(/filename="?([^";]+)"?/);
  return match?.[1] ?? `${base}_${new Date().toISOString().slice(0, 10)}.${extension}`;
}

export async function saveResponse(res: Pick<Response, 'ok' | 'status' | 'headers' | 'blob'>, base: string, extension: string): Promise<void> {
  if (!res.ok) throw new Error(String(res.status));
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileNameFrom(res.headers.get('Content-Disposition'), base, extension);
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Give the browser time to start the download before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
