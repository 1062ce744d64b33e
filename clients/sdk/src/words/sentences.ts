// Small rules of written English shared by the server's texts and the web app (through the SDK).

/** Words placed inside a sentence, after a colon or a preposition ("compared with the current pathway"), go on in lower case; an acronym keeps its capitals. */
export function inSentence(words: string): string {
  return /^[A-Z][a-z]/.test(words) ? words.charAt(0).toLowerCase() + words.slice(1) : words;
}
