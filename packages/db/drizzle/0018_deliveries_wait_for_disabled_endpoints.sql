DROP INDEX "webhook_deliveries_due_idx";--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_due_idx" ON "webhook_deliveries" USING btree ("endpoint_id","next_attempt_at","id") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
-- Hand-written (issue 40), kept apart from the generated statements: an endpoint registered for
-- `all` stored the types known then, so it missed every type added later (purchase.unconfirmed
-- came after the first six). Every endpoint whose list holds all six of the first types becomes
-- `{all}` (the CLI's default and the page's checked box; the page cannot pick six types one by one).
UPDATE "webhook_endpoints" SET "event_types" = ARRAY['all']
WHERE "event_types" @> ARRAY['enrollment.created', 'enrollment.completed', 'certificate.issued', 'certificate.revoked', 'purchase.paid', 'purchase.refunded']::text[];
