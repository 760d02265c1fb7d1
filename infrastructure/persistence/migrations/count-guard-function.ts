/**
 * A guard a unit of queued writes ends with: `name(n)` is true when `n` (the rows a statement changed) is 1, else it
 * raises `message` with the service's own SQLSTATE `sqlState`, so PostgreSQL rolls the whole unit back and the
 * repository recognizes the error by its code. One shape for every such guard (routing_lease_held, payment_unchanged).
 */
export function countGuardFunction(name: string, message: string, sqlState: string): string {
  return `
      create or replace function ${name}(n bigint) returns boolean language plpgsql as $$
      begin
        if n <> 1 then
          raise exception '${message}' using errcode = '${sqlState}';
        end if;
        return true;
      end
      $$;`;
}
