import type { Format } from './format.js';
import { type NotificationMessages, rupiah, when } from './notification-messages.js';

/** The notifications in English: the same kinds as the Indonesian words (./notification-messages.ts), which the type enforces. */
export function notificationMessagesEn(f: Format): NotificationMessages {
  const days = (n: number) => f.plural(n, { one: '# day', other: '# days' });
  return {
    common: {
      greeting: 'Hello,',
      orOpen: "If the button above doesn't work, open this link:",
      details: 'The details',
      why: 'You are receiving this e-mail because you have an account on the LMS.',
      settings: 'Choose which e-mails you get',
      unsubscribe: 'Stop receiving e-mails like this',
    },
    'enrolment.confirmed': (d) => ({
      subject: `You're enrolled in ${d.courseTitle}`,
      paragraphs: [`Your enrolment in ${d.courseTitle} is confirmed.`, 'You can start whenever you like. Enjoy the course!'],
      action: { label: 'Start learning', url: d.courseUrl },
    }),
    'purchase.transfer_instructions': (d) => ({
      subject: `How to pay for ${d.itemTitle}`,
      paragraphs: [
        `Thank you for buying ${d.itemTitle}. Please transfer ${rupiah(f, d.amount)} to the account below before ${when(f, d.payBefore)}.`,
        `Write ${d.reference} in the transfer description so we can find your payment quickly. The course opens once the payment is confirmed.`,
      ],
      details: [
        ['Bank', d.bankName],
        ['Account number', d.accountNumber],
        ['Account name', d.accountName],
        ['Amount', rupiah(f, d.amount)],
        ['Transfer description', d.reference],
        ['Pay before', when(f, d.payBefore)],
      ],
      action: { label: 'View your purchase', url: d.purchaseUrl },
    }),
    'purchase.paid': (d) => ({
      subject: `Payment received: ${d.itemTitle}`,
      paragraphs: [`We've received your payment of ${rupiah(f, d.amount)} for ${d.itemTitle}. Thank you!`, 'Your course is open now.'],
      action: { label: 'Open the course', url: d.courseUrl },
    }),
    'purchase.rejected': (d) => ({
      subject: `We couldn't confirm your payment: ${d.itemTitle}`,
      paragraphs: [
        `Sorry, we couldn't confirm your payment of ${rupiah(f, d.amount)} for ${d.itemTitle}.`,
        `The reason: ${d.reason}`,
        'Open your purchase to see what to do next.',
      ],
      action: { label: 'View your purchase', url: d.purchaseUrl },
    }),
    'purchase.refunded': (d) => ({
      subject: `Refund issued: ${d.itemTitle}`,
      paragraphs: [`Your payment of ${rupiah(f, d.amount)} for ${d.itemTitle} has been refunded.`, `The reason: ${d.reason}`],
      action: { label: 'View your purchase', url: d.purchaseUrl },
    }),
    'purchase.expiring': (d) => ({
      subject: `Reminder: pay for ${d.itemTitle} by ${when(f, d.payBefore)}`,
      paragraphs: [
        `Your purchase of ${d.itemTitle} is still waiting for a payment of ${rupiah(f, d.amount)}.`,
        `If it isn't paid by ${when(f, d.payBefore)}, it will be cancelled automatically. Remember to write ${d.reference} in the transfer description.`,
      ],
      action: { label: 'See how to pay', url: d.purchaseUrl },
    }),
    'certificate.issued': (d) => ({
      subject: `Congratulations! Your certificate for ${d.courseTitle} is ready`,
      paragraphs: [
        `Well done on completing ${d.courseTitle}. Your certificate has been issued.`,
        'You can download it as a PDF, or share its digital credential with anyone who needs to check it.',
      ],
      action: { label: 'View your certificate', url: d.certificateUrl },
      more: [
        { label: 'Download the PDF', url: d.pdfUrl },
        { label: 'Digital credential (Open Badges)', url: d.credentialUrl },
      ],
    }),
    'attempt.granted': (d) => ({
      subject: `Another try at ${d.quizTitle}`,
      paragraphs: [`Your teacher has given you another attempt at ${d.quizTitle} in ${d.courseTitle}.`, 'Good luck!'],
      action: { label: 'Take the quiz', url: d.quizUrl },
    }),
    'course.ending': (d) => ({
      subject: d.daysLeft <= 0 ? `${d.courseTitle} ends today` : `${d.courseTitle} ends in ${days(d.daysLeft)}`,
      paragraphs: [
        `${d.courseTitle} ends on ${when(f, d.endsAt)}.`,
        d.progressPercent >= 100
          ? "You've finished everything. You can still open the materials until the course ends."
          : `You've completed ${f.percent(d.progressPercent)} so far. There's still time to finish.`,
      ],
      action: { label: 'Continue learning', url: d.courseUrl },
    }),
    'course.inactive': (d) => ({
      subject: `Pick up ${d.courseTitle} where you left off`,
      paragraphs: [
        `It's been ${days(d.daysInactive)} since you last opened ${d.courseTitle}.`,
        'A little at a time still counts: carry on from where you stopped.',
      ],
      action: { label: 'Continue learning', url: d.courseUrl },
    }),
    'credits.progress': (d) => ({
      subject: `Your ${d.unit} for ${d.year}: ${f.number(d.earned)} of ${f.number(d.target)}`,
      paragraphs: [
        `In ${d.year} you've earned ${f.number(d.earned)} of the ${f.number(d.target)} ${d.unit} ${d.partnerName} asks for.`,
        d.earned >= d.target
          ? "You've reached this year's target. Congratulations!"
          : `${f.number(d.target - d.earned)} ${d.unit} to go. See which courses can add to your total.`,
      ],
      action: { label: 'View your credits', url: d.creditsUrl },
    }),
    'digest.admin': (d) => ({
      subject: `${d.institutionName}: ${f.plural(d.pendingTransfers, { one: '# transfer', other: '# transfers' })} waiting for confirmation`,
      paragraphs: [
        d.stuckPayments > 0
          ? `${f.plural(d.pendingTransfers, { one: 'One transfer is', other: '# transfers are' })} waiting for you to confirm, and ${f.plural(d.stuckPayments, { one: 'one payment is', other: '# payments are' })} stuck.`
          : `${f.plural(d.pendingTransfers, { one: 'One transfer is', other: '# transfers are' })} waiting for you to confirm.`,
        'New learners can start once you confirm their payment.',
      ],
      lines: d.lines,
      action: { label: 'Review transfers', url: d.transfersUrl },
    }),
    'digest.teacher': (d) => ({
      subject: `Your courses: ${f.plural(d.newLearners, { one: '# new learner', other: '# new learners' })}, ${f.plural(d.evaluationComments, { one: '# evaluation comment', other: '# evaluation comments' })}`,
      paragraphs: [
        `Since the last summary your courses have ${f.plural(d.newLearners, { one: '# new learner', other: '# new learners' })} and ${f.plural(d.evaluationComments, { one: '# evaluation comment', other: '# evaluation comments' })}.`,
      ],
      lines: d.lines,
      action: { label: 'Open the studio', url: d.studioUrl },
    }),
  };
}
