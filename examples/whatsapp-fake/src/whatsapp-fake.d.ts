import type { Server } from 'node:http';

export interface FakeMessage {
  id: string;
  to: string;
  template: { name: string; language: string; parameters: string[] };
  components: { type: string; sub_type?: string; index?: string; parameters: { type: 'text'; text: string }[] }[];
  at: string;
}

export interface WhatsAppFakeOptions {
  accessToken: string;
  phoneNumberId: string;
  onWhatsApp?: Iterable<string>;
  templates?: Record<string, number>;
  webhookUrl?: string;
  appSecret?: string;
  autoDeliver?: boolean;
  log?: { info?(m: string): void; warn?(m: string): void; error?(e: unknown): void };
}

export interface WhatsAppFake {
  server: Server;
  messages: FakeMessage[];
  failNext(status: 429 | 500 | 'hang', times?: number): void;
  expireToken(expired?: boolean): void;
  addNumber(number: string): void;
  sendStatus(input: {
    id: string;
    status: 'sent' | 'delivered' | 'read' | 'failed';
    errorCode?: number;
    timestamp?: number;
  }): Promise<number>;
  close(): Promise<void>;
}

export function createWhatsAppFake(options: WhatsAppFakeOptions): WhatsAppFake;

export function statusWebhookBody(input: {
  id: string;
  status: string;
  recipient: string;
  phoneNumberId: string;
  timestamp?: number;
  errorCode?: number;
}): unknown;
