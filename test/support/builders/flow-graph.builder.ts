/** Flow graphs as a merchant sends them in REST bodies (POST /v1/flows), for end-to-end tests. */

export const node = (id: string, type: string, data: Record<string, unknown> = {}) => ({ id, type, position: { x: 0, y: 0 }, data });

/** An edge whose id is `source-port` (or `source-next` without a port). */
export const edge = (source: string, target: string, sourcePort?: string) => ({ id: `${source}-${sourcePort ?? 'next'}`, source, target, ...(sourcePort ? { sourcePort } : {}) });

/**
 * trigger -> three_ds (node 1, `auth`) on the account; authenticated -> charge (the same account); failed -> decline;
 * unavailable -> charge, or decline when told; charge approved -> approve, declined -> decline.
 */
export function threeDsGraph(accountId: string, unavailable: 'charge' | 'decline' = 'charge') {
  return {
    nodes: [
      node('trigger', 'trigger'),
      node('auth', 'three_ds', { connectorAccountId: accountId }),
      node('charge', 'acquirer', { connectorAccountId: accountId }),
      node('approve', 'approve'),
      node('decline', 'decline'),
    ],
    edges: [
      edge('trigger', 'auth'),
      edge('auth', 'charge', 'authenticated'),
      edge('auth', 'decline', 'failed'),
      edge('auth', unavailable, 'unavailable'),
      edge('charge', 'approve', 'approved'),
      edge('charge', 'decline', 'declined'),
    ],
  };
}

/** trigger -> antifraud: approve -> acquirer; review -> review node; decline and error -> decline. */
export const screeningGraph = (antifraudId: string, acquirerId: string) => ({
  nodes: [node('trigger', 'trigger'), node('screen', 'antifraud', { connectorAccountId: antifraudId }), node('charge', 'acquirer', { connectorAccountId: acquirerId }), node('hold', 'review'), node('approve', 'approve'), node('decline', 'decline')],
  edges: [
    edge('trigger', 'screen'),
    edge('screen', 'charge', 'approve'),
    edge('screen', 'hold', 'review'),
    edge('screen', 'decline', 'decline'),
    { ...edge('screen', 'decline', 'error'), id: 'screen-error' },
    edge('hold', 'charge', 'approved'),
    edge('hold', 'decline', 'declined'),
    edge('charge', 'approve', 'approved'),
    edge('charge', 'decline', 'declined'),
  ],
});
