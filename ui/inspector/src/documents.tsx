import { useEffect, useState } from 'preact/hooks';
import { adminBlob, describeError } from './api';

export interface StoredDocument {
  id: string;
  type: string;
  groupId: string;
  mediaType: string;
  contentType: 'PDF' | 'PNG' | 'ZPL';
  fileName: string;
  trackingNumber?: string;
}

/** A document previewed inline: PDF in the browser's viewer, PNG as an image, ZPL as its text. */
export function DocumentPreview({ accountId, document }: { accountId: string; document: StoredDocument }) {
  const [url, setUrl] = useState<string | undefined>(undefined);
  const [text, setText] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let objectUrl: string | undefined;
    adminBlob(`state/accounts/${accountId}/documents/${document.id}/data`).then(
      async (blob) => {
        if (document.contentType === 'ZPL') setText(await blob.text());
        else setUrl((objectUrl = URL.createObjectURL(blob)));
      },
      (e: unknown) => setError(describeError(e)),
    );
    return () => objectUrl && URL.revokeObjectURL(objectUrl);
  }, [accountId, document.id]);
  const title = `${document.type} ${document.fileName}`;
  if (error) return <p class="notice error">{error}</p>;
  return (
    <figure class="document">
      <figcaption>
        {title} ({document.contentType})
        {url && (
          <>
            {' '}
            · <a href={url} download={document.fileName}>download</a>
          </>
        )}
      </figcaption>
      {document.contentType === 'PNG' && url && <img src={url} alt={`Label ${document.trackingNumber ?? document.fileName}`} class="label-png" />}
      {document.contentType === 'PDF' && url && (
        <object data={url} type="application/pdf" class="label-pdf" aria-label={title}>
          <a href={url}>Open {document.fileName}</a>
        </object>
      )}
      {text !== undefined && <pre class="code zpl" aria-label={`ZPL of ${document.fileName}`}>{text}</pre>}
      {!url && text === undefined && <p class="muted">Loading…</p>}
    </figure>
  );
}
