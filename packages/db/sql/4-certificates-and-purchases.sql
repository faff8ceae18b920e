-- courses.certificate_count and the 'certificate_holder' participants; courses and bundles
-- paid_purchase_count (0003).

CREATE FUNCTION lms_count_certificates() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_category integer;
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE courses SET certificate_count = certificate_count - 1 WHERE id = OLD.course_id
      RETURNING category_id INTO v_category;
    PERFORM lms_adjust_participants('certificate_holder', v_category, ARRAY[OLD.user_id], -1);
    PERFORM lms_adjust_participants('certificate_holder', 0, ARRAY[OLD.user_id], -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    v_category := NULL;
    UPDATE courses SET certificate_count = certificate_count + 1 WHERE id = NEW.course_id
      RETURNING category_id INTO v_category;
    PERFORM lms_adjust_participants('certificate_holder', v_category, ARRAY[NEW.user_id], 1);
    PERFORM lms_adjust_participants('certificate_holder', 0, ARRAY[NEW.user_id], 1);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER certificates_count_trg AFTER INSERT OR DELETE OR UPDATE OF user_id, course_id ON certificates
  FOR EACH ROW EXECUTE FUNCTION lms_count_certificates();

-- Paid purchases count toward their bundle when they have one, else toward their course (as the
-- progress metrics attribute them); a purchase with neither (both deleted) counts overall only,
-- found through purchases_paid_orphan_idx.
CREATE FUNCTION lms_count_purchases() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') AND OLD.status = 'paid' THEN
    IF OLD.bundle_id IS NOT NULL THEN
      UPDATE bundles SET paid_purchase_count = paid_purchase_count - 1 WHERE id = OLD.bundle_id;
    ELSIF OLD.course_id IS NOT NULL THEN
      UPDATE courses SET paid_purchase_count = paid_purchase_count - 1 WHERE id = OLD.course_id;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.status = 'paid' THEN
    IF NEW.bundle_id IS NOT NULL THEN
      UPDATE bundles SET paid_purchase_count = paid_purchase_count + 1 WHERE id = NEW.bundle_id;
    ELSIF NEW.course_id IS NOT NULL THEN
      UPDATE courses SET paid_purchase_count = paid_purchase_count + 1 WHERE id = NEW.course_id;
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER purchases_count_insert_delete_trg AFTER INSERT OR DELETE ON purchases
  FOR EACH ROW EXECUTE FUNCTION lms_count_purchases();

-- Only a change that moves the purchase between counted and not, or between targets, runs it.
CREATE TRIGGER purchases_count_update_trg AFTER UPDATE OF status, course_id, bundle_id ON purchases
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.course_id IS DISTINCT FROM NEW.course_id
        OR OLD.bundle_id IS DISTINCT FROM NEW.bundle_id)
  EXECUTE FUNCTION lms_count_purchases();
