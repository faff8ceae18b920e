import type { Server } from 'node:http';

export interface SandboxNotification {
  id: string;
  provider: 'midtrans' | 'xendit';
  kind: string;
  url: string | undefined;
  headers: Record<string, string>;
  /** The body exactly as sent (JSON text). */
  body: string;
  json: Record<string, unknown>;
  attempts: { at: string; status: number | null; error?: string }[];
  state: 'queued' | 'sending' | 'retrying' | 'delivered' | 'failed' | 'held' | 'dropped' | 'no-url';
  at: string;
}

export interface SandboxRequest {
  at: string;
  method: string;
  path: string;
  /** The Authorization scheme ("Basic"), never its value. */
  authorization: string | null;
  status?: number;
  /** The body as parsed (JSON or form), or its text when it did not parse. */
  body?: unknown;
}

export interface PaymentSandboxOptions {
  midtrans?: { serverKey?: string; notificationUrl?: string; merchantId?: string };
  xendit?: {
    secretKey?: string;
    callbackToken?: string;
    invoiceCallbackUrl?: string;
    refundCallbackUrl?: string;
    businessId?: string;
    merchantName?: string;
  };
  publicUrl?: string;
  retryScale?: number;
  retryDelays?: { midtrans: number[]; xendit: number[] };
  log?: { warn?(m: string): void; error?(e: unknown): void };
}

export interface PaymentSandbox {
  server: Server;
  requests: SandboxRequest[];
  notifications: SandboxNotification[];
  midtrans: {
    transactions: Map<string, Record<string, unknown>>;
    transition(orderId: string, status: string, options?: { paymentType?: string }): unknown;
  };
  xendit: {
    invoices: Map<string, Record<string, unknown>>;
    transition(id: string, status: 'PAID' | 'EXPIRED', options?: { channel?: string }): unknown;
  };
  idle(): Promise<void>;
  hold(on?: boolean): void;
  release(): number;
  drop(times?: number): void;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

export function createPaymentSandbox(options?: PaymentSandboxOptions): PaymentSandbox;
export function signatureKey(orderId: string, statusCode: string, grossAmount: string, serverKey: string): string;
export const STATUS_CODE: Record<string, string>;
export const RETRY_DELAYS: { midtrans: number[]; xendit: number[] };
