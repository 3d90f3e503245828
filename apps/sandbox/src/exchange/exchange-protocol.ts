import { InvalidParam } from '../shared/invalid-param';
import { idString, isObject, objectBody, optionalObject } from '../shared/body-checks';
import { MAX_SEARCH_OFFERS } from '../partners/partner-protocol';

/**
 * The exchange protocol (docs/sandbox.md, "Exchange protocol"): a second,
 * deliberately foreign partner interface, for the json partner adapter to be
 * configured against. PascalCase fields, the offers' programs nested in each
 * match and the questions nested in each program, minutes for expiry, its own
 * decision vocabulary and HTTP statuses, and an API key it requires.
 */
export interface ExchangeSearchRequest {
  RequestId: string;
  Campaigns: string[];
  Applicant?: Record<string, unknown>;
  Source?: Record<string, unknown>;
  TestMode?: boolean;
}

export interface ExchangeQuestion {
  Key: string;
  Prompt: string;
  Kind: 'Dropdown' | 'FreeText' | 'Numeric';
  Mandatory: boolean;
  Choices?: Array<{ Id: string; Text: string }>;
}

export interface ExchangeProgram {
  Code: string;
  Title: string;
  Questions: ExchangeQuestion[];
}

export interface ExchangeMatch {
  CampaignCode: string;
  MatchToken: string;
  Institution: { DisplayName: string; LogoUrl: string };
  Disclosure: string;
  ValidForMinutes: number;
  /** What the exchange pays per lead: a field no mapping should ever read into a result. */
  Payout: { Amount: string; Currency: string };
  Programs: ExchangeProgram[];
}

export interface ExchangeSearchResponse {
  RequestId: string;
  Status: 'OK';
  Data: { Matches: ExchangeMatch[] };
}

export interface ExchangeApplication {
  MatchToken: string;
  CampaignCode: string;
  ProgramCode?: string | null;
  Applicant?: Record<string, unknown>;
  Responses?: Record<string, unknown>;
  Consent: { Given: boolean } & Record<string, unknown>;
}

/** The header carrying the API key, and the key the exchange `<name>` issued (docs/sandbox.md). */
export const EXCHANGE_KEY_HEADER = 'x-api-key';
export const exchangeApiKey = (name: string) => `sandbox-key-${name}`;

export function parseExchangeSearch(body: unknown): ExchangeSearchRequest {
  const o = objectBody(body);
  const RequestId = idString(o.RequestId, 'RequestId');
  if (!Array.isArray(o.Campaigns)) throw new InvalidParam('Campaigns', 'body', 'Campaigns must be an array of campaign codes');
  if (o.Campaigns.length > MAX_SEARCH_OFFERS)
    throw new InvalidParam('Campaigns', 'body', `Campaigns may list at most ${MAX_SEARCH_OFFERS} codes`);
  const Campaigns = o.Campaigns.map((code: unknown, i: number) => idString(code, `Campaigns[${i}]`));
  optionalObject(o.Applicant, 'Applicant');
  optionalObject(o.Source, 'Source');
  if (o.TestMode !== undefined && typeof o.TestMode !== 'boolean') throw new InvalidParam('TestMode', 'body', 'TestMode must be a boolean');
  return { ...(o as object), RequestId, Campaigns } as ExchangeSearchRequest;
}

export function parseExchangeApplication(body: unknown): ExchangeApplication {
  const o = objectBody(body);
  idString(o.MatchToken, 'MatchToken');
  idString(o.CampaignCode, 'CampaignCode');
  if (o.ProgramCode !== undefined && o.ProgramCode !== null && typeof o.ProgramCode !== 'string') {
    throw new InvalidParam('ProgramCode', 'body', 'ProgramCode must be a string or null');
  }
  optionalObject(o.Applicant, 'Applicant');
  optionalObject(o.Responses, 'Responses');
  if (!isObject(o.Consent) || typeof o.Consent.Given !== 'boolean') {
    throw new InvalidParam('Consent.Given', 'body', 'Consent must be an object whose Given is a boolean');
  }
  return o as unknown as ExchangeApplication;
}
