import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

let encoder: Tiktoken | undefined;

/** Tokens of `text` in OpenAI's cl100k_base encoding (the ranks ship in the package; nothing is fetched). */
export function countTokens(text: string): number {
  encoder ??= new Tiktoken(cl100k);
  // Special-token strings in documents are plain text here, not control tokens.
  return encoder.encode(text, [], []).length;
}
