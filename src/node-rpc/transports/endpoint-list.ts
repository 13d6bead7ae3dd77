import type { AnyMethod } from '../../rpc/method';

/**
 * The HTML page CometBFT serves on `GET /`: every route, sorted by name, each with its argument names
 * (CometBFT lists even the argument-less ones under "require arguments").
 */
export function endpointListHtml(host: string, specs: readonly AnyMethod[]): string {
  const links = [...specs]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((spec) => {
      const url = `//${host}/${spec.name}?${spec.params.map((p) => `${p.name}=_`).join('&')}`;
      return `<a href="${url}">${url}</a></br>`;
    })
    .join('');
  return `<html><body><br>Available endpoints:<br><br>Endpoints that require arguments:<br>${links}</body></html>`;
}
