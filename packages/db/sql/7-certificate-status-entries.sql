-- The default of certificates.status_entry (0016; the column required by 0017).

-- Where a new certificate's revocation bit goes (certificates.status_entry = (list - 1) * 131072 +
-- index, list and index of the W3C Bitstring Status List): a random free index of the current
-- list, as the spec says ("SHOULD assign indexes randomly, such that inferences, such as the
-- recency of the assignment or the size of the group, cannot be easily drawn from that
-- position"). certificate_status_seq counts entries handed out: a list takes 65,536 of its
-- 131,072 indexes, so a random pick is free at the first or second try. Two transactions issuing
-- at once must not pick the same index: each takes one of the list's 64 stripes (2,048 indexes)
-- with a transaction-scoped advisory try-lock, never waiting for a busy one, and picks inside it
-- (committed entries are seen: under READ COMMITTED each statement has a fresh snapshot). A
-- transaction holds at most 64 of these locks, however many certificates it inserts; the unique
-- index certificates_status_entry_key has the last word.
CREATE FUNCTION lms_next_status_entry() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_list integer := (nextval('certificate_status_seq') / 65536)::integer;
  v_stripe integer;
  v_entry integer;
BEGIN
  FOR v_attempt IN 1..256 LOOP
    v_stripe := floor(random() * 64)::integer;
    IF v_attempt = 256 THEN
      -- Every stripe tried was busy: wait for the last one.
      PERFORM pg_advisory_xact_lock(727003, v_list * 64 + v_stripe);
    ELSIF NOT pg_try_advisory_xact_lock(727003, v_list * 64 + v_stripe) THEN
      CONTINUE;
    END IF;
    FOR v_pick IN 1..8 LOOP
      v_entry := v_list * 131072 + v_stripe * 2048 + floor(random() * 2048)::integer;
      IF NOT EXISTS (SELECT 1 FROM certificates WHERE status_entry = v_entry) THEN
        RETURN v_entry;
      END IF;
    END LOOP;
  END LOOP;
  RAISE EXCEPTION 'no free revocation status entry in status list %', v_list + 1;
END $$;
