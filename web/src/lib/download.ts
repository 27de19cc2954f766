/** Saves `blob` as a file named `fileName`, as a download the browser asks about or keeps. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own reference by now; the object URL is only needed for the click.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
