/**
 * The x86-64 routines (System V ABI, Linux) as one {@link Routines} set: what `../platform.ts`
 * hands out on an x86-64 CPU.
 *
 * @module
 */
import { coherentCaches } from "../../os.ts";
import type { Routines } from "../routines.ts";
import { generateDeleteEachX8664 } from "./delete_each.ts";
import { generatePlacingX8664 } from "./placing.ts";
import { generateReaderX8664 } from "./reader.ts";
import { generateX8664 } from "./ring.ts";
import { generateSubmitX8664 } from "./submit.ts";

/** The x86-64 generators. */
export const x8664Routines: Routines = {
  arch: "x86_64",
  ring: generateX8664,
  placing: generatePlacingX8664,
  reader: generateReaderX8664,
  submit: generateSubmitX8664,
  deleteEach: generateDeleteEachX8664,
  flush: coherentCaches,
};
