// How a local model's prompt becomes token ids: the state, each question, each label.
//
// - The caller's text (state, instructions, options) is tokenised WITHOUT special-token parsing: a state holding
//   "<|im_end|>" stays text. Control tokens come only from the chat template's own text, inserted by id.
// - Otherwise the split follows Hugging Face: text between control tokens is one section, each section is
//   normalised, pre-tokenised and encoded on its own; a SentencePiece "▁" is prepended only to the sequence's first
//   section when the tokenizer says `prepend_scheme: "first"`.
// - The state is tokenised once and is the first part of every sequence. A question is tokenised in the context of
//   the state's last characters (STATE_CLOSE), a label in the context of the answer cue: "prefix + text", keeping
//   the tokens after the prefix's own, and refusing when the prefix's tokens change (they would merge across the
//   boundary). A label tokenised alone is wrong under SentencePiece ("A" → "▁A").
// - BOS: a chat template writes its own (transformers tokenises its output without adding special tokens); without
//   a template, `add_bos_token` of tokenizer_config.json decides, else what tokenizer.json's post-processor puts
//   before the text. An EOS is never appended: the model reads the next token after the prompt.
import { Tokenizer } from '@huggingface/tokenizers';
import { BackendError } from '../../engine/backend';
import { ANSWER_CUE, STATE_CLOSE, letterLabel } from '../../engine/render';
import { questionBody, tokenText, type ChatFrame, type JsonObject } from './chat-template';
import { TokenMemo } from './token-memo';

interface SpecialToken {
  content: string;
  id: number;
  lstrip: boolean;
  rstrip: boolean;
}

type Piece = { text: string } | { special: SpecialToken };

/** A part of a prompt: the chat template's own text (control tokens parsed) or caller text (never parsed). */
interface PromptPart {
  text: string;
  template: boolean;
}

/** Characters of text whose tokenisation each model keeps (states, questions, labels). */
const TOKEN_MEMO_CHARS = 4 * 1024 * 1024;

/** The same tokenizer.json without its special tokens: text such as "<|im_end|>" is encoded as ordinary text. */
function withoutSpecialTokens(tokenizerJson: JsonObject): JsonObject {
  const added = (tokenizerJson.added_tokens ?? []) as JsonObject[];
  return { ...tokenizerJson, added_tokens: added.filter((t) => t.special !== true) };
}

/** A pre-tokenizer config whose Metaspace "▁" goes only on the sequence's first section, never prepended. */
function neverPrepend(preTokenizer: unknown): unknown {
  if (Array.isArray(preTokenizer)) return preTokenizer.map(neverPrepend);
  if (preTokenizer === null || typeof preTokenizer !== 'object') return preTokenizer;
  const config = { ...(preTokenizer as JsonObject) };
  if (config.type === 'Metaspace' && config.prepend_scheme === 'first') config.prepend_scheme = 'never';
  if (config.pretokenizers) config.pretokenizers = neverPrepend(config.pretokenizers);
  return config;
}

function startsWith(ids: readonly number[], prefix: readonly number[]): boolean {
  return prefix.length <= ids.length && prefix.every((id, i) => ids[i] === id);
}

export class PromptTokenizer {
  /** Caller text at the start of a sequence. */
  private readonly plainFirst: Tokenizer;
  /** Caller text after the start (after a control token, or in context). */
  private readonly plainLater: Tokenizer;
  /** Special tokens, longest first (the first match at a position wins, as in Hugging Face's splitter). */
  private readonly specials: SpecialToken[];
  /** Token ids before the state when there is no chat template (BOS per tokenizer_config.json). */
  readonly leadingIds: readonly number[];
  private readonly memo = new TokenMemo(TOKEN_MEMO_CHARS);

  /**
   * `chat`: the model's chat template frame, or undefined for the plain prompt. Throws, naming the file and
   * field, when the tokenizer config is inconsistent or the prompt's parts cannot be tokenised in context.
   */
  constructor(
    tokenizerJson: JsonObject,
    tokenizerConfig: JsonObject,
    readonly chat: ChatFrame | undefined,
  ) {
    const plain = withoutSpecialTokens(tokenizerJson);
    this.plainFirst = new Tokenizer(plain, tokenizerConfig);
    this.plainLater = new Tokenizer({ ...plain, pre_tokenizer: neverPrepend(plain.pre_tokenizer) }, tokenizerConfig);
    this.specials = ((tokenizerJson.added_tokens ?? []) as JsonObject[])
      .filter((t) => t.special === true && typeof t.content === 'string' && t.content !== '')
      .map((t) => ({
        content: t.content as string,
        id: t.id as number,
        lstrip: t.lstrip === true,
        rstrip: t.rstrip === true,
      }))
      .sort((a, b) => b.content.length - a.content.length);
    this.leadingIds = chat ? [] : bosIds(new Tokenizer(tokenizerJson, tokenizerConfig), tokenizerConfig);
    this.checkLabels();
  }

  /** Ids of caller text as it would start a sequence, with no special tokens added: what a text costs. */
  textIds(text: string): readonly number[] {
    return this.memo.ids('text', text, (t) => this.plainFirst.encode(t, { add_special_tokens: false }).ids);
  }

  /** The state: BOS or the template's text before the user message, then the rendered state. */
  stateIds(prefix: string): readonly number[] {
    return this.memo.ids('state', prefix, (p) => {
      if (!this.chat) return [...this.leadingIds, ...this.encodeParts([{ text: p, template: false }], true)];
      return this.encodeParts(
        [
          { text: this.chat.before, template: true },
          { text: p, template: false },
        ],
        true,
      );
    });
  }

  /** A question after the state: its text, then (chat) the end of the user turn and the generation prompt, the cue. */
  questionIds(suffix: string): readonly number[] {
    return this.memo.ids('question', suffix, (s) => {
      const parts: PromptPart[] = this.chat
        ? [
            { text: questionBody(s), template: false },
            { text: this.chat.after, template: true },
            { text: ANSWER_CUE, template: false },
          ]
        : [{ text: s, template: false }];
      return this.encodeParts(parts, false, STATE_CLOSE);
    });
  }

  /** A label's ids as they follow the answer cue. */
  labelIds(label: string): readonly number[] {
    return this.memo.ids('label', label, (l) => this.inContext(ANSWER_CUE, l));
  }

  /** Tokens of `text` where it follows `context`; refuses when the context's own tokens change. */
  private inContext(context: string, text: string): number[] {
    const alone = this.plainLater.encode(context, { add_special_tokens: false }).ids;
    const joined = this.plainLater.encode(context + text, { add_special_tokens: false }).ids;
    if (!startsWith(joined, alone)) {
      throw new BackendError(
        `the tokenizer merges ${JSON.stringify(text.slice(0, 40))} with the text before it (${JSON.stringify(context)}), so it cannot be read after that text`,
        502,
        'tokenizer_unsupported',
        { publicMessage: "The local model's tokenizer cannot split this prompt where the judge reads it." },
      );
    }
    return joined.slice(alone.length);
  }

  /** The parts as one sequence: control tokens of template text by id, the text between them section by section. */
  private encodeParts(parts: PromptPart[], startsSequence: boolean, context?: string): number[] {
    const pieces = this.pieces(parts);
    const ids: number[] = [];
    pieces.forEach((piece, i) => {
      if ('special' in piece) {
        ids.push(piece.special.id);
      } else if (piece.text !== '') {
        if (i === 0 && context !== undefined) ids.push(...this.inContext(context, piece.text));
        else {
          const tokenizer = startsSequence && i === 0 ? this.plainFirst : this.plainLater;
          ids.push(...tokenizer.encode(piece.text, { add_special_tokens: false }).ids);
        }
      }
    });
    return ids;
  }

  /** Splits template text at its control tokens; caller text stays whole. Adjacent text joins into one section. */
  private pieces(parts: PromptPart[]): Piece[] {
    const pieces: Piece[] = [];
    const addText = (text: string): void => {
      const last = pieces[pieces.length - 1];
      if (last && 'text' in last) last.text += text;
      else pieces.push({ text });
    };
    for (const part of parts) {
      if (!part.template) {
        addText(part.text);
        continue;
      }
      let start = 0;
      for (let i = 0; i < part.text.length;) {
        const special = this.specials.find((s) => part.text.startsWith(s.content, i));
        if (!special) {
          i++;
          continue;
        }
        if (i > start) addText(part.text.slice(start, i));
        pieces.push({ special });
        i += special.content.length;
        start = i;
      }
      if (start < part.text.length) addText(part.text.slice(start));
    }
    pieces.forEach((piece, i) => {
      if (!('special' in piece)) return;
      const before = pieces[i - 1];
      const after = pieces[i + 1];
      if (piece.special.lstrip && before && 'text' in before) before.text = before.text.trimEnd();
      if (piece.special.rstrip && after && 'text' in after) after.text = after.text.trimStart();
    });
    return pieces;
  }

  /** At load: every standard label and a question can be read in context (else the model is refused at start). */
  private checkLabels(): void {
    const labels = ['Yes', 'No', ...Array.from({ length: 26 }, (_, i) => letterLabel(i)), ...'0123456789'];
    for (const label of labels) {
      if (this.labelIds(label).length === 0)
        throw new Error(`the answer label ${JSON.stringify(label)} encodes to no tokens`);
    }
    this.questionIds(`Question:\nIs it?\nOptions:\n(Yes) yes\n(No) no\n\nReply with the label only.\n${ANSWER_CUE}`);
  }
}

/** BOS without a chat template: `add_bos_token` of tokenizer_config.json, else what the post-processor prepends. */
function bosIds(full: Tokenizer, tokenizerConfig: JsonObject): number[] {
  const add = tokenizerConfig.add_bos_token;
  if (add === false) return [];
  if (add === true) {
    const bos = tokenText(tokenizerConfig.bos_token);
    if (bos === undefined) throw new Error('tokenizer_config.json add_bos_token is true but bos_token is not set');
    const id = full.token_to_id(bos);
    if (id === undefined)
      throw new Error(`tokenizer_config.json bos_token ${JSON.stringify(bos)} is not in tokenizer.json`);
    return [id];
  }
  if (add !== undefined) throw new Error('tokenizer_config.json add_bos_token must be true or false');
  const withSpecial = full.encode('a').ids;
  const without = full.encode('a', { add_special_tokens: false }).ids;
  for (let i = 0; i + without.length <= withSpecial.length; i++) {
    if (without.every((id, j) => withSpecial[i + j] === id)) return withSpecial.slice(0, i);
  }
  return [];
}
