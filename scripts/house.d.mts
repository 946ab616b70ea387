/** Types of scripts/house.mjs (plain JavaScript so that eslint.config.mjs can import it). */
export declare const ROOT: string;
export declare const HOUSE: readonly { room: string; paths: readonly string[] }[];
export declare const UPWARD_ALLOWED: readonly { from: string; to: string; why: string }[];
export declare function roomOf(relativePath: string): { room: string; floor: number } | undefined;
export declare function upwardArrow(
  fromFile: string,
  target: string,
): { from: string; to: string; allowed: { from: string; to: string; why: string } | undefined } | undefined;
