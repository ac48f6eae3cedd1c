//! Identifier tokens tagged with their position, so that names read back
//! from the parser's AST (which keeps copies of token texts, not their
//! offsets) say which token of the original text they came from.
//!
//! Every identifier and string token of the text gets a tag appended
//! inside its quotes: a marker character followed by the token's index,
//! written in private-use characters. Characters above 0x7F are
//! identifier characters to the tokenizer, so a tagged text tokenizes
//! and parses exactly like the original (same token kinds, same tree);
//! only the names carry the tag. Tokens whose text the parser inspects
//! (`WITHOUT ROWID`, `STRICT`) are left as they are.
//!
//! Invariant: [`split`] of a tagged name gives back the original token's text
//! (quotes included) and its index in [`Tagged::toks`] (checked: tagged_split).

use crate::sql::parse::{tokens, Tok};
use crate::util::ascii::AsciiLower;
use sqlite3_parser::dialect::TokenType;

/// Starts a tag.
const MARK: char = '\u{E000}';
/// Decimal digit `d` of a tag is `DIGIT0 + d`.
const DIGIT0: u32 = 0xE001;

/// A text with its identifier tokens tagged.
pub struct Tagged {
    /// The tagged text, to be parsed.
    pub text: String,
    /// Tokens of the original text.
    pub toks: Vec<Tok>,
}

/// Tag every identifier and string token of `sql`.
pub fn tag(sql: &str) -> Tagged {
    let toks = tokens(sql.as_bytes()).collect::<Vec<_>>();
    let mut text = String::with_capacity(sql.len() + toks.len() * 8);
    let mut last = 0;
    for (i, t) in toks.iter().enumerate() {
        if !matches!(t.kind, TokenType::TK_ID | TokenType::TK_STRING) {
            continue;
        }
        let word = &sql[t.start..t.end];
        let quoted = matches!(word.as_bytes()[0], b'"' | b'\'' | b'`' | b'[');
        let prev = i.checked_sub(1).map(|p| toks[p].kind);
        let option_word = ["rowid", "strict"].iter().any(|w| word.eq_ci(w));
        if !quoted && option_word && matches!(prev, Some(TokenType::TK_WITHOUT | TokenType::TK_RP | TokenType::TK_COMMA)) {
            continue;
        }
        let at = if quoted { t.end - 1 } else { t.end };
        text.push_str(&sql[last..at]);
        text.push(MARK);
        for d in i.to_string().bytes() {
            text.push(char::from_u32(DIGIT0 + u32::from(d - b'0')).unwrap_or(MARK));
        }
        last = at;
    }
    text.push_str(&sql[last..]);
    Tagged { text, toks }
}

/// A tagged name's original text and token index (`None`: not tagged).
pub fn split(name: &str) -> (String, Option<usize>) {
    let Some(at) = name.find(MARK) else { return (name.to_string(), None) };
    let rest = &name[at + MARK.len_utf8()..];
    let mut index = 0usize;
    let mut end = rest.len();
    for (o, ch) in rest.char_indices() {
        let d = ch as u32;
        if !(DIGIT0..DIGIT0 + 10).contains(&d) {
            end = o;
            break;
        }
        index = index.saturating_mul(10).saturating_add((d - DIGIT0) as usize);
    }
    (format!("{}{}", &name[..at], &rest[end..]), Some(index))
}

/// A tagged name without quotes or tag: the name it stands for.
pub fn plain(name: &str) -> String {
    crate::sql::parse::unquote(&split(name).0)
}

/// The tag's token index of a name, if it has one.
pub fn index(name: &str) -> Option<usize> {
    split(name).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        let t = tag("SELECT \"a b\", c FROM [t1] WHERE x='s'");
        let words: Vec<&str> = tokens(t.text.as_bytes()).map(|k| &t.text[k.start..k.end]).filter(|w| w.contains(MARK)).collect();
        assert_eq!(words.len(), 5);
        // invariant: tagged_split
        assert_eq!(split(words[0]).0, "\"a b\"");
        assert_eq!(plain(words[0]), "a b");
        assert_eq!(plain(words[2]), "t1");
        assert_eq!(index(words[1]), Some(3));
        assert_eq!(plain(words[4]), "s");
    }

    #[test]
    fn option_words_stay() {
        let t = tag("CREATE TABLE t(a PRIMARY KEY) WITHOUT ROWID, STRICT");
        assert!(t.text.ends_with("WITHOUT ROWID, STRICT"));
    }
}
