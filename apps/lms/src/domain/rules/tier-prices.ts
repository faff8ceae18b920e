import { bundles, courses, users } from '@lms/db';
import { type AnyColumn, sql } from 'drizzle-orm';

/** A buyer's pricing tier (users.tier, from the SSO token's `sub`); null for accounts without one (staff). */
export type Tier = 'anggota' | 'umum' | 'mahasiswa';

/**
 * The one home of the tier price rule (docs/architecture.md, "Taking a course"), for a course:
 * anggota → `price`; umum → `priceNonMember`, falling back to `price`; mahasiswa →
 * `priceMahasiswa`, falling back to `price`. An account without a tier (a staff account enrolling)
 * pays `price`, the member price. Prices are decimal text (numeric(14,2)); nothing is computed, one
 * of them is chosen. The pages (catalog cards, the course page's "Your price", the enrol section)
 * ask this same function with the catalog's numbers, so a person is shown what they are charged.
 */
export function courseTierPrice<P extends string | number>(
  course: { price: P; priceNonMember: P | null; priceMahasiswa: P | null },
  tier: Tier | string | null,
): P {
  if (tier === 'umum') return course.priceNonMember ?? course.price;
  if (tier === 'mahasiswa') return course.priceMahasiswa ?? course.price;
  return course.price;
}

/** The buyer's tier as a parameter subquery (a one-table select renders columns unqualified). */
export function buyerTier(userId: string) {
  return sql<Tier | null>`(select ${users.tier} from ${users} where ${users.id} = ${userId})`;
}

/**
 * The columns courseTierPrice() reads, with the buyer's tier, for a select from `courses`: what
 * enrolment, the course page's enrol section and a purchase all ask before anything else. The
 * tier is a parameter subquery (a one-table select renders columns unqualified).
 */
export function coursePriceForBuyerColumns(userId: string) {
  return {
    isPurchasable: courses.isPurchasable,
    price: courses.price,
    priceNonMember: courses.priceNonMember,
    priceMahasiswa: courses.priceMahasiswa,
    currency: courses.currency,
    tier: buyerTier(userId),
    endDate: courses.endDate,
  };
}

/**
 * Whether a course's sales are closed at `now`: a course is not sold, nor enrolled in, once its
 * `endDate` has passed (alone or inside a bundle). A course without an end date is never closed.
 */
export function salesEnded(endDate: Date | string | null, now: Date): boolean {
  return endDate !== null && new Date(endDate).getTime() <= now.getTime();
}

/** The error text of an enrolment or purchase refused because the course ended (409). */
export function courseEndedMessage(name: string | null, endDate: Date | string): string {
  const day = new Date(endDate).toISOString().slice(0, 10);
  return `${name ? `The course "${name}"` : 'This course'} ended on ${day}: it takes no more enrolments or purchases`;
}

/**
 * A bundle's prices with the catalog's fallbacks (GET /api/recommended-courses): `price` is the
 * bundle's own or the two course prices added up; `priceNonMember` falls back to that price.
 * Added up in SQL (numeric), so no floating-point sum is rounded. `one` and `two` are the two
 * course tables of the query (aliases of courses).
 */
export function bundlePriceColumns(one: { price: AnyColumn }, two: { price: AnyColumn }) {
  const pairSum = sql`${one.price} + ${two.price}`;
  return {
    price: sql<string>`coalesce(${bundles.price}, ${pairSum})::text`,
    priceNonMember: sql<string>`coalesce(${bundles.priceNonMember}, ${bundles.price}, ${pairSum})::text`,
  };
}

/**
 * The tier price of a bundle: umum → its non-member price; anggota, mahasiswa (bundles have no
 * student price) and accounts without a tier → its price.
 */
export function bundleTierPrice(bundle: { price: string; priceNonMember: string }, tier: Tier | null): string {
  return tier === 'umum' ? bundle.priceNonMember : bundle.price;
}

/** Whether a decimal-text amount asks for any money. */
export function isPositiveAmount(amount: string): boolean {
  return Number(amount) > 0;
}
