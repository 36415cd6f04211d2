/** A decision record as docs/decisions/NNNN-title.md holds it. */
export interface DecisionRecord {
  number: string;
  name: string;
  /** From the repository root: docs/decisions/NNNN-title.md. */
  path: string;
  text: string;
  status: string;
  governs: string[];
}
export const CITATION: RegExp;
export function isCitable(file: string): boolean;
export function decisionRecords(root: string): DecisionRecord[];
