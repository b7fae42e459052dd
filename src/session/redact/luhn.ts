/**
 * Payment card numbers by the Luhn check (ISO/IEC 7812-1): 13 to 19 digits,
 * in groups separated by single spaces or dashes, as people type them,
 * whose first digit is a card network's (2 to 6: Mastercard's 2-series,
 * Amex, Diners and JCB's 3, Visa's 4, Mastercard's 5, Discover, UnionPay
 * and Maestro's 6). One in ten runs of digits passes the Luhn check by
 * chance: the first digit keeps millisecond timestamps (13 digits starting
 * with 1 until 2033) and ids starting with 0, 1, 7, 8 or 9 out.
 */

/** Whether a string of digits passes the Luhn check. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** A card number: 13–19 digits, each group of digits joined by one space or dash, not inside a longer run of digits. */
const CANDIDATE = /(?<![\d])\d(?:[ -]?\d){12,18}(?![\d])/g;

export interface CardMatch {
  start: number;
  end: number;
}

/** Where card numbers are in a text (digits that pass the Luhn check and are not all one digit). */
export function findCardNumbers(text: string): CardMatch[] {
  if (text.length < 13) return [];
  // Most texts hold fewer than 13 digits: counted before the expression runs.
  let digits = 0;
  for (let i = 0; i < text.length && digits < 13; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
  }
  if (digits < 13) return [];
  const out: CardMatch[] = [];
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(text); m; m = CANDIDATE.exec(text)) {
    const digits = m[0].replace(/[ -]/g, '');
    if (digits.length < 13 || digits.length > 19) continue;
    // 0000 0000 0000 0000 passes the check and is a placeholder, not a card.
    if (/^(\d)\1+$/.test(digits) || !NETWORK.test(digits)) continue;
    if (luhnValid(digits)) out.push({ start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The first digit of the card networks' numbers. */
const NETWORK = /^[2-6]/;

/** Whether a number, as JSON writes it, is a card number. */
export function isCardNumber(n: number): boolean {
  if (!Number.isSafeInteger(n) || n < 0) return false;
  const s = String(n);
  return s.length >= 13 && s.length <= 19 && NETWORK.test(s) && !/^(\d)\1+$/.test(s) && luhnValid(s);
}
