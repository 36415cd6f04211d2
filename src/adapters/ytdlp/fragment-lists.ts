/*
 * yt-dlp lists a post_live video's fragments one by one in `-J` (`_prepare_live_from_start_formats`
 * materialises them: `{"url": base&sq=N, "fragment_count": M}` for every fragment still kept, for
 * each format): about a kilobyte a fragment a format, so hundreds of megabytes for a long
 * broadcast. Kura reads a format's base URL and adds `sq` itself, so those lists are dropped from
 * the output as it arrives, before its bound is counted and before it is parsed.
 */

const KEY = '"fragments": [';

/**
 * A filter of `yt-dlp -J` output, chunk by chunk: every `"fragments": [ … ]` list becomes `"fragments": []`
 * (a `fragments` that is a string, as a live format's is, is left alone). Strings are read with
 * their escapes, so a `]` inside a URL does not end a list.
 */
export function fragmentListsDropped(): { push(chunk: string): string; end(): string } {
  let depth = 0; // inside a dropped list: bracket depth; 0 outside
  let inString = false;
  let escaped = false;
  let tail = ''; // the end of the last chunk outside a list, in case the key is cut in two
  const push = (chunk: string): string => {
    let out = '';
    let text = tail + chunk;
    tail = '';
    while (text.length > 0) {
      if (depth === 0) {
        const at = text.indexOf(KEY);
        if (at === -1) {
          // keep back what could be the start of the key
          const keep = Math.min(KEY.length - 1, text.length);
          out += text.slice(0, text.length - keep);
          tail = text.slice(text.length - keep);
          return out;
        }
        out += `${text.slice(0, at)}"fragments": []`;
        text = text.slice(at + KEY.length);
        [depth, inString, escaped] = [1, false, false];
        continue;
      }
      let i = 0;
      for (; i < text.length && depth > 0; i++) {
        const c = text[i];
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '[') depth++;
        else if (c === ']') depth--;
      }
      text = text.slice(i);
    }
    return out;
  };
  // what was kept back at the end of the output: its last characters, never part of a key
  const end = () => (depth === 0 ? tail : '');
  return { push, end };
}
