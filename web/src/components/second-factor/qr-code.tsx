import { useEffect, useState } from 'react';

/**
 * `value` as a QR code: an SVG drawn by the qrcode package, shown as a data: image (the page CSP
 * allows img-src data:, and nothing is injected into the document). The package is loaded on this
 * page only, as a chunk of its own.
 */
export function QrCode({ value, label }: { value: string; label: string }) {
  const [source, setSource] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    import('qrcode')
      .then((qrcode) =>
        qrcode.toString(value, {
          type: 'svg',
          margin: 2,
          errorCorrectionLevel: 'M',
          color: { dark: '#18212c' },
        }),
      )
      .then(
        (svg) => {
          if (current) setSource(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
        },
        () => {
          if (current) setSource(null);
        },
      );
    return () => {
      current = false;
    };
  }, [value]);
  return (
    <div className="qr-code">{source ? <img src={source} alt={label} width={200} height={200} /> : null}</div>
  );
}
