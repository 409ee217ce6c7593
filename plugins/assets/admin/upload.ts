import { ApiError } from '../../admin-ui/app/src/sdk/index.ts';
import type { Asset } from './model.ts';

/**
 * Stores one file in the library (`POST /api/v1/dam/upload`, multipart) and reports progress.
 * XMLHttpRequest, not fetch: only it reports upload progress in every browser.
 */
export function uploadFile(
  file: File,
  target: { folder: string; visibility: 'public' | 'private'; overwrite: boolean },
  onProgress: (fraction: number) => void,
): Promise<Asset> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    // Fields before the file part: the server reads them with it.
    form.append('folder', target.folder);
    form.append('visibility', target.visibility);
    if (target.overwrite) form.append('overwrite', '1');
    form.append('file', file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v1/dam/upload');
    xhr.withCredentials = true;
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(xhr.response as Asset);
      } else reject(new ApiError(xhr.status, xhr.response ?? undefined));
    };
    xhr.onerror = () => reject(new Error('The upload failed: the server could not be reached'));
    xhr.send(form);
  });
}
