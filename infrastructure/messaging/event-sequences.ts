/**
 * Event numbering, shared by the relay's claim and by append with `assignSequence`: SQL common table expressions
 * that follow a CTE `claimed (id, organization_id, sequence)` of locked event rows and yield `numbered (id,
 * sequence)`. Rows that already have a sequence keep it; the others take their organization's next numbers in id
 * order (ids are monotonic, so creation order). Counters are taken in organization-id order, so relays and
 * appenders numbering at once never deadlock.
 */
export const NUMBERING_CTES = `wanted as (
      select organization_id, count(*)::int8 as n from claimed where sequence is null group by organization_id
    ), counters as (
      insert into organization_sequences as s (organization_id, last_value)
      select organization_id, n from wanted order by organization_id
      on conflict (organization_id) do update set last_value = s.last_value + excluded.last_value
      returning organization_id, last_value
    ), numbered as (
      select c.id, coalesce(c.sequence, k.last_value - w.n
               + row_number() over (partition by c.organization_id, c.sequence is null order by c.id)) as sequence
        from claimed c
        left join wanted w on w.organization_id = c.organization_id
        left join counters k on k.organization_id = c.organization_id
    )`;
