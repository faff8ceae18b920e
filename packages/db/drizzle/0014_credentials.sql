CREATE TABLE "credential_issuer_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_targets" (
	"id" serial PRIMARY KEY NOT NULL,
	"partner_id" integer NOT NULL,
	"scheme" text NOT NULL,
	"period" text NOT NULL,
	"years" integer DEFAULT 1 NOT NULL,
	"amount" numeric(8, 2) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_targets_period" CHECK ("credit_targets"."period" in ('calendar_year', 'rolling')),
	CONSTRAINT "credit_targets_years" CHECK ("credit_targets"."years" between 1 and 10 and ("credit_targets"."period" = 'rolling' or "credit_targets"."years" = 1)),
	CONSTRAINT "credit_targets_amount_positive" CHECK ("credit_targets"."amount" > 0)
);
--> statement-breakpoint
CREATE TABLE "credits" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"course_id" integer NOT NULL,
	"certificate_id" integer NOT NULL,
	"scheme" text NOT NULL,
	"amount" numeric(8, 2) NOT NULL,
	"earned_at" timestamp with time zone NOT NULL,
	"voided_at" timestamp with time zone,
	CONSTRAINT "credits_amount_positive" CHECK ("credits"."amount" > 0)
);
--> statement-breakpoint
DROP INDEX "certificates_user_course_key";--> statement-breakpoint
ALTER TABLE "courses" ADD COLUMN "credit_scheme" text DEFAULT 'KUM' NOT NULL;--> statement-breakpoint
ALTER TABLE "courses" ADD COLUMN "certificate_valid_months" integer;--> statement-breakpoint
ALTER TABLE "certificates" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "certificates" ADD COLUMN "is_private" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "certificates" ADD COLUMN "subject_salt" text DEFAULT replace(gen_random_uuid()::text, '-', '') NOT NULL;--> statement-breakpoint
ALTER TABLE "certificates" ADD COLUMN "reissued_from" integer;--> statement-breakpoint
ALTER TABLE "credit_targets" ADD CONSTRAINT "credit_targets_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credits" ADD CONSTRAINT "credits_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credits" ADD CONSTRAINT "credits_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credits" ADD CONSTRAINT "credits_certificate_id_certificates_id_fk" FOREIGN KEY ("certificate_id") REFERENCES "public"."certificates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_targets_key" ON "credit_targets" USING btree ("partner_id","scheme","period","years");--> statement-breakpoint
CREATE UNIQUE INDEX "credits_certificate_key" ON "credits" USING btree ("certificate_id");--> statement-breakpoint
CREATE INDEX "credits_user_idx" ON "credits" USING btree ("user_id","earned_at");--> statement-breakpoint
CREATE INDEX "certificates_user_idx" ON "certificates" USING btree ("user_id","issued_at");--> statement-breakpoint
CREATE UNIQUE INDEX "certificates_user_course_key" ON "certificates" USING btree ("user_id","course_id") WHERE revoked_at is null;--> statement-breakpoint
ALTER TABLE "courses" ADD CONSTRAINT "courses_credit_scheme_shape" CHECK ("courses"."credit_scheme" ~ '^[A-Z][A-Z0-9-]{0,19}$');--> statement-breakpoint
ALTER TABLE "courses" ADD CONSTRAINT "courses_certificate_valid_months" CHECK ("courses"."certificate_valid_months" between 1 and 600);--> statement-breakpoint
-- Every certificate issued before credit records existed gets its record (revoked ones voided).
INSERT INTO "credits" ("user_id", "course_id", "certificate_id", "scheme", "amount", "earned_at", "voided_at")
SELECT k."user_id", k."course_id", k."id", c."credit_scheme", k."kum", k."issued_at", k."revoked_at"
FROM "certificates" k JOIN "courses" c ON c."id" = k."course_id" WHERE k."kum" > 0;
