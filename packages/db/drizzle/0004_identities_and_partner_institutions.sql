CREATE TYPE "public"."identity_origin" AS ENUM('sso', 'operator');--> statement-breakpoint
CREATE TABLE "identities" (
	"issuer" text NOT NULL,
	"membership_id" text NOT NULL,
	"user_id" text NOT NULL,
	"origin" "identity_origin" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "identities_pkey" PRIMARY KEY("issuer","membership_id")
);
--> statement-breakpoint
CREATE TABLE "partner_institutions" (
	"partner_id" integer NOT NULL,
	"institution_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partner_institutions_pkey" PRIMARY KEY("partner_id","institution_id")
);
--> statement-breakpoint
DROP INDEX "users_issuer_membership_key";--> statement-breakpoint
ALTER TABLE "identities" ADD CONSTRAINT "identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_institutions" ADD CONSTRAINT "partner_institutions_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_institutions" ADD CONSTRAINT "partner_institutions_institution_id_institutions_id_fk" FOREIGN KEY ("institution_id") REFERENCES "public"."institutions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "identities_user_issuer_key" ON "identities" USING btree ("user_id","issuer");--> statement-breakpoint
CREATE INDEX "partner_institutions_institution_idx" ON "partner_institutions" USING btree ("institution_id");--> statement-breakpoint

-- Today's SSO members keep their sign-in: the (issuer, membership_id) stamped on a student's user
-- row becomes that account's identity. Staff accounts (teacher, admin, super_admin) are not
-- carried over on purpose: before this migration any partner could stamp its issuer on a staff
-- account by putting the staff e-mail in a token, so such a link proves nothing. An operator
-- links staff again with `lms-admin user link`. Partners are not bound to institutions here
-- either: an operator binds each one (`lms-admin partner bind --institution`) before it can
-- create courses again.
INSERT INTO "identities" ("issuer", "membership_id", "user_id", "origin", "created_at")
SELECT "issuer", "membership_id", "id", 'sso', "created_at"
FROM "users"
WHERE "issuer" IS NOT NULL AND "membership_id" IS NOT NULL AND "role" = 'student'
ON CONFLICT DO NOTHING;--> statement-breakpoint
-- What a partner's token wrote on a staff account (its membershipId and tier) is dropped with the
-- link: staff rows got them only from that e-mail match, never from an operator.
UPDATE "users" SET "membership_id" = NULL, "tier" = NULL
WHERE "issuer" IS NOT NULL AND "role" <> 'student';--> statement-breakpoint
ALTER TABLE "users" DROP COLUMN "issuer";