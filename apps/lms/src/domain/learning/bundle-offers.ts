import { bundles, categories, courses, type Db, enrollments, institutions, purchases } from '@lms/db';
import { and, asc, count, eq, lte, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { buyerVisibleWhere } from '../rules/buyer-visible.js';
import { buyerTier, bundlePriceColumns, bundleTierPrice, courseTierPrice, isPositiveAmount, salesEnded } from '../rules/tier-prices.js';

/** A bundle as one buyer sees it on the bundles page: what it holds, their price, where they stand. */
export interface BundleOffer {
  id: number;
  name: string;
  description: string;
  categoryName: string;
  /** The two courses, each with its end date (after which it is not sold, so neither is the bundle). */
  courses: [OfferCourse, OfferCourse];
  /** The two courses bought separately at the buyer's tier (courseTierPrice each), decimal text: what the bundle saves against. */
  separatePrice: string;
  /** The buyer's price at their tier (bundleTierPrice), decimal text. */
  price: string;
  currency: string;
  /** Whether there is anything to pay: false when the buyer's price is zero. */
  forSale: boolean;
  /** How many of the two courses the buyer is enrolled in. */
  enrolledIn: 0 | 1 | 2;
  /**
   * One course of the bundle the buyer already has (enrolled) or is paying for (a pending purchase
   * of it, or of another bundle holding it), with the other course: nobody pays twice for a
   * course, so such a bundle is not sold to them (buy the other course on its own).
   */
  held: { course: { id: number; name: string }; why: 'enrolled' | 'waiting'; other: { id: number; name: string } } | null;
  paid: boolean;
  /** The buyer's pending purchase of the bundle (bank transfer not yet confirmed), if any. */
  pending: {
    id: number;
    amount: string;
    currency: string;
    reference: string | null;
    expiresAt: string | null;
    /** The account of the first course's institution (null fields when the operator set none). */
    transferAccount: { bankName: string | null; accountNumber: string | null; accountName: string | null } | null;
  } | null;
}

export interface OfferCourse {
  id: number;
  name: string;
  endDate: Date | null;
}

/** The first course of the bundle that has ended at `now`, if any: then the bundle is not sold. */
export function endedCourseOf(offer: Pick<BundleOffer, 'courses'>, now: Date): (OfferCourse & { endDate: Date }) | null {
  const ended = offer.courses.find((c) => salesEnded(c.endDate, now));
  return ended?.endDate ? (ended as OfferCourse & { endDate: Date }) : null;
}

const one = alias(courses, 'offer_course_one');
const two = alias(courses, 'offer_course_two');

/** Which bundles: one by id, those that hold a course (either of its two), or those up to an id (where one stands in the list). */
export interface BundleOfferFilter {
  bundleId?: number;
  courseId?: number;
  upToId?: number;
}

/** A page of them: at most `limit`, after `offset` (in id order). */
export interface BundleOfferWindow {
  offset: number;
  limit: number;
}

function offerWhere(filter: BundleOfferFilter) {
  const { bundleId, courseId, upToId } = filter;
  return and(
    bundleId === undefined ? undefined : eq(bundles.id, bundleId),
    upToId === undefined ? undefined : lte(bundles.id, upToId),
    courseId === undefined ? undefined : or(eq(bundles.courseOneId, courseId), eq(bundles.courseTwoId, courseId)),
    buyerVisibleWhere(one),
    buyerVisibleWhere(two),
  );
}

/** How many bundles findBundleOffers would list for this filter without a window (no buyer state needed). */
export async function countBundleOffers(db: Db, filter: BundleOfferFilter = {}): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(bundles)
    .innerJoin(one, eq(one.id, bundles.courseOneId))
    .innerJoin(two, eq(two.id, bundles.courseTwoId))
    .where(offerWhere(filter));
  return row?.total ?? 0;
}

/**
 * The bundles a buyer can buy (both courses buyer-visible), in id order, each with the buyer's tier
 * price and their enrolments, payment and pending purchase: one bundle (`bundleId`), those holding a
 * course (`courseId`), or all; a window of them when one is given. The bundles page and the course
 * page show these, and a bundle purchase is priced and refused by the same one (purchases.ts).
 * One statement; not a hot path.
 */
export async function findBundleOffers(
  db: Db,
  userId: string,
  filter: BundleOfferFilter = {},
  window?: BundleOfferWindow,
): Promise<BundleOffer[]> {
  const query = db
    .select({
      id: bundles.id,
      name: bundles.name,
      description: bundles.description,
      categoryName: categories.name,
      courseOneId: one.id,
      courseOneName: one.name,
      courseOneEnd: one.endDate,
      courseTwoId: two.id,
      courseTwoName: two.name,
      courseTwoEnd: two.endDate,
      courseOnePrices: { price: one.price, priceNonMember: one.priceNonMember, priceMahasiswa: one.priceMahasiswa },
      courseTwoPrices: { price: two.price, priceNonMember: two.priceNonMember, priceMahasiswa: two.priceMahasiswa },
      ...bundlePriceColumns(one, two),
      currency: bundles.currency,
      tier: buyerTier(userId),
      enrolledIds: sql<number[]>`coalesce((select json_agg(e.course_id order by e.course_id) from ${enrollments} e
        where e.user_id = ${userId} and e.course_id in (${bundles.courseOneId}, ${bundles.courseTwoId})), '[]'::json)`,
      // Of the two courses, those with a purchase of the buyer's waiting for payment: of the course
      // itself, or of another bundle that holds it.
      waitingIds: sql<
        number[]
      >`coalesce((select json_agg(c.id order by c.id) from (values (${bundles.courseOneId}), (${bundles.courseTwoId})) as c(id)
        where exists (select 1 from ${purchases} wp left join ${bundles} wb on wb.id = wp.bundle_id
          where wp.user_id = ${userId} and wp.status = 'pending' and wp.bundle_id is distinct from ${bundles.id}
            and (wp.course_id = c.id or wb.course_one_id = c.id or wb.course_two_id = c.id))), '[]'::json)`,
      paid: sql<boolean>`exists (select 1 from ${purchases} p where p.user_id = ${userId} and p.bundle_id = ${bundles.id} and p.status = 'paid')`,
      pending: sql<BundleOffer['pending']>`(select json_build_object('id', p.id, 'amount', p.amount::text, 'currency', p.currency,
        'reference', p.reference, 'expiresAt', p.expires_at,
        'transferAccount', (select json_build_object('bankName', i.transfer_bank, 'accountNumber', i.transfer_account_number,
          'accountName', i.transfer_account_holder) from ${institutions} i where i.id = ${one.institutionId})) from ${purchases} p
        where p.user_id = ${userId} and p.bundle_id = ${bundles.id} and p.status = 'pending')`,
    })
    .from(bundles)
    .innerJoin(categories, eq(categories.id, bundles.categoryId))
    .innerJoin(one, eq(one.id, bundles.courseOneId))
    .innerJoin(two, eq(two.id, bundles.courseTwoId))
    .where(offerWhere(filter))
    .orderBy(asc(bundles.id))
    .$dynamic();
  const rows = await (window ? query.limit(window.limit).offset(window.offset) : query);
  return rows.map((r) => {
    const price = Number(bundleTierPrice(r, r.tier)).toFixed(2);
    // In cents: two numeric(14,2) amounts added without a binary fraction's rounding.
    const cents = (amount: string) => Math.round(Number(amount) * 100);
    const separately = cents(courseTierPrice(r.courseOnePrices, r.tier)) + cents(courseTierPrice(r.courseTwoPrices, r.tier));
    const pair = [
      { id: r.courseOneId, name: r.courseOneName },
      { id: r.courseTwoId, name: r.courseTwoName },
    ] as const;
    const heldAs = (ids: number[], why: 'enrolled' | 'waiting') => {
      const course = pair.find((c) => ids.includes(c.id));
      return course ? { course, why, other: pair.find((c) => c !== course) ?? course } : null;
    };
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      categoryName: r.categoryName,
      courses: [
        { id: r.courseOneId, name: r.courseOneName, endDate: r.courseOneEnd },
        { id: r.courseTwoId, name: r.courseTwoName, endDate: r.courseTwoEnd },
      ],
      separatePrice: (separately / 100).toFixed(2),
      price,
      currency: r.currency,
      forSale: isPositiveAmount(price),
      // Enrolments are unique per (user, course): counted over the bundle's two courses, 0 to 2.
      enrolledIn: r.enrolledIds.length as 0 | 1 | 2,
      held: heldAs(r.enrolledIds, 'enrolled') ?? heldAs(r.waitingIds, 'waiting'),
      paid: r.paid,
      pending: r.pending,
    };
  });
}
