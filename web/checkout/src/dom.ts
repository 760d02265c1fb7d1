/** Building the checkout's elements without innerHTML: every text the page shows (a merchant's name, a decline phrase) stays text. */

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string | number | boolean | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/** Copies text for the buyer (Pix code, digitable line); the clipboard API needs a secure context, so a fallback. */
export async function copyText(text: string, source: HTMLInputElement | HTMLTextAreaElement): Promise<boolean> {
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the selection
  }
  source.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}
