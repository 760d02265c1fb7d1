/**
 * The antifraud provider's device fingerprint script (the public view's deviceFingerprint): loaded before the card
 * form, so the provider sees the device the card is entered on, under the session id the authorization names.
 */
import type { DeviceFingerprint } from './public-api';

/** A provider that does not answer must not keep the buyer from paying: the form shows after this at the latest. */
const LOAD_WAIT_MS = 3000;

const loading = new Map<string, Promise<void>>();

/** Adds the script once per session (a declined card's second try reuses it) and settles when it ran, failed or took too long. */
export function loadDeviceFingerprint(baseUrl: string, fingerprint: DeviceFingerprint): Promise<void> {
  const src = new URL(fingerprint.scriptUrl, baseUrl).href;
  let loaded = loading.get(src);
  if (!loaded) {
    loaded = new Promise<void>((resolve) => {
      const script = document.createElement('script');
      script.src = src;
      script.async = true;
      script.setAttribute('data-device-fingerprint', fingerprint.provider);
      script.addEventListener('load', () => resolve());
      script.addEventListener('error', () => resolve());
      window.setTimeout(resolve, LOAD_WAIT_MS);
      document.head.append(script);
    });
    loading.set(src, loaded);
  }
  return loaded;
}
