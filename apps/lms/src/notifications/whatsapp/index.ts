// The WhatsApp channel (docs/operations.md, "WhatsApp set-up"): the sender, the templates and
// what the status webhook hands on. The route is routes/webhooks/whatsapp.ts.
export {
  createWhatsAppSender,
  type OutgoingWhatsAppMessage,
  templateMessageBody,
  type WhatsAppChannel,
  type WhatsAppSenderOptions,
  whatsAppSenderFromConfig,
} from './sender.js';
export {
  PHONE_CONFIRMATION_TEMPLATE,
  parameterText,
  phoneConfirmationMessage,
  WHATSAPP_TEMPLATES,
  type WhatsAppTemplate,
  whatsAppTemplate,
} from './templates.js';
export {
  isSignedBy,
  type OnWhatsAppStatus,
  SIGNATURE_HEADER,
  signBody,
  statusUpdates,
  supersedes,
  WHATSAPP_STATUSES,
  type WhatsAppStatus,
  type WhatsAppStatusUpdate,
} from './webhook.js';
