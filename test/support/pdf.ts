/** What a made-up PDF carries besides its pages' text. */
export interface PdfOptions {
  /** JavaScript the document runs when opened (the catalog's /OpenAction). */
  openScript?: string;
  /** JavaScript each page runs when shown (the page's /AA /O additional action). */
  pageOpenScript?: string;
}

/** A PDF string literal: backslashes and parentheses escaped. */
const literal = (text: string): string => `(${text.replace(/[\\()]/g, (char) => `\\${char}`)})`;

const javaScript = (script: string): string => `<< /S /JavaScript /JS ${literal(script)} >>`;

/**
 * A small real PDF with one page per entry of `pages`, each reading its text in Helvetica, and
 * optionally scripts a PDF reader with JavaScript would run on opening it.
 */
export function pdfWith(pages: string[], options: PdfOptions = {}): Buffer {
  const font = 3 + pages.length * 2;
  const catalog = `<< /Type /Catalog /Pages 2 0 R${options.openScript ? ` /OpenAction ${javaScript(options.openScript)}` : ''} >>`;
  const pageAction = options.pageOpenScript ? ` /AA << /O ${javaScript(options.pageOpenScript)} >>` : '';
  const objects = [
    catalog,
    `<< /Type /Pages /Kids [${pages.map((_, index) => `${3 + index * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    ...pages.flatMap((text, index) => {
      const stream = `BT /F1 24 Tf 72 720 Td ${literal(text)} Tj ET`;
      return [
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + index * 2} 0 R /Resources << /Font << /F1 ${font} 0 R >> >>${pageAction} >>`,
        `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
      ];
    }),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
