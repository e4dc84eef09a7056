// Text into HTML (the stats page): hosts and keys are what clients sent, reasons and purge
// values what they asked for, so every string from the data goes through here, in text and in
// attribute values alike. The five characters that can end a text run or a quoted attribute
// (HTML Living Standard §13.1.2.6, §13.2.5) become character references.

const REFERENCES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => REFERENCES[char] ?? char);
}
