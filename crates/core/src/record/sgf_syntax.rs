//! SGF's syntax (FF[4]): a collection of game trees, each a sequence of nodes
//! holding properties `ID[value][value]`, with variations in parentheses.
//! Only the main line matters to a recorder: the first variation at every
//! branch. Nothing here knows Go; `sgf.rs` gives the properties their meaning.
//!
//! Read without recursion, so that no text (a thousand nested parentheses)
//! can exhaust the stack, and without slicing inside a character, so that no
//! text can make it panic.

use crate::record::error::{SgfError, TextPos};

/// A property as written: its identifier, its values (escapes resolved, soft
/// line breaks removed) and where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Prop {
    pub(crate) id: String,
    pub(crate) values: Vec<String>,
    pub(crate) at: TextPos,
}

/// A node: its properties in order, and where its `;` stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Node {
    pub(crate) props: Vec<Prop>,
    pub(crate) at: TextPos,
}

impl Node {
    /// The first value of property `id`, if the node has it.
    pub(crate) fn get(&self, id: &str) -> Option<&Prop> {
        self.props.iter().find(|p| p.id == id)
    }
}

/// Where a game tree starts and ends in a text: the byte offsets of its `(`
/// and of its closing `)` plus one.
fn tree_spans(text: &str) -> Option<Vec<(usize, usize)>> {
    let mut spans = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut in_value = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_value {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                ']' => in_value = false,
                _ => {}
            }
            continue;
        }
        match c {
            '[' if depth > 0 => in_value = true,
            '(' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    spans.push((start, i + 1));
                }
            }
            _ => {}
        }
    }
    (depth == 0 && !in_value).then_some(spans)
}

/// The texts of a collection's game trees, each from its `(` to its `)`; the
/// whole text as one when it is not a well-formed collection (its reader then
/// says what is wrong), or when it holds no tree.
pub(crate) fn split_trees(text: &str) -> Vec<String> {
    match tree_spans(text) {
        Some(spans) if !spans.is_empty() => spans
            .into_iter()
            .map(|(a, b)| text.get(a..b).unwrap_or_default().to_string())
            .collect(),
        _ => vec![text.to_string()],
    }
}

/// One level of parentheses being read: whether it is on the main line, and
/// whether a variation was already opened inside it.
struct Level {
    main: bool,
    has_child: bool,
}

/// The main line of every game tree of `text`, in order; refused with the
/// place of the first thing that is not SGF. Text outside the trees is
/// ignored, as the standard allows.
pub(crate) fn main_lines(text: &str) -> Result<Vec<Vec<Node>>, SgfError> {
    let mut games: Vec<Vec<Node>> = Vec::new();
    let mut levels: Vec<Level> = Vec::new();
    // Whether the node being read is on the main line, once a `;` opened one.
    let mut in_node = false;
    let mut chars = text.char_indices().peekable();
    let err = |offset: usize, why: String| SgfError {
        at: Some(TextPos::of(text, offset)),
        why,
    };
    while let Some((i, c)) = chars.next() {
        if levels.is_empty() {
            if c == '(' {
                levels.push(Level {
                    main: true,
                    has_child: false,
                });
                games.push(Vec::new());
                in_node = false;
            }
            continue;
        }
        let on_main = levels.last().is_some_and(|l| l.main);
        match c {
            c if c.is_whitespace() => {}
            '(' => {
                let parent = levels.last_mut();
                let main = parent.is_some_and(|p| {
                    let first = !p.has_child;
                    p.has_child = true;
                    p.main && first
                });
                levels.push(Level {
                    main,
                    has_child: false,
                });
                in_node = false;
            }
            ')' => {
                levels.pop();
                in_node = false;
            }
            ';' => {
                if levels.last().is_some_and(|l| l.has_child) {
                    return Err(err(
                        i,
                        "a node after a variation: `;` must come before `(`".into(),
                    ));
                }
                in_node = true;
                if on_main {
                    if let Some(g) = games.last_mut() {
                        g.push(Node {
                            props: Vec::new(),
                            at: TextPos::of(text, i),
                        });
                    }
                }
            }
            c if c.is_ascii_alphabetic() => {
                if !in_node {
                    return Err(err(
                        i,
                        format!("property `{c}...` outside a node: a `;` must open the node first"),
                    ));
                }
                let prop = property(text, i, c, &mut chars).map_err(|(at, why)| err(at, why))?;
                if on_main {
                    if let Some(node) = games.last_mut().and_then(|g| g.last_mut()) {
                        node.props.push(prop);
                    }
                }
            }
            other => {
                return Err(err(
                    i,
                    format!("unexpected `{other}`: expected `;`, `(`, `)` or a property"),
                ))
            }
        }
    }
    if !levels.is_empty() {
        return Err(SgfError {
            at: Some(TextPos::of(text, text.len())),
            why: "the game tree is not closed: a `)` is missing".into(),
        });
    }
    Ok(games)
}

type Chars<'a> = std::iter::Peekable<std::str::CharIndices<'a>>;

/// Reads a property whose identifier starts with `first` at byte `start`:
/// upper-case letters make the identifier (lower-case ones, allowed in old
/// files, are skipped), then one or more `[values]`.
fn property(
    text: &str,
    start: usize,
    first: char,
    chars: &mut Chars<'_>,
) -> Result<Prop, (usize, String)> {
    let mut id = String::new();
    if first.is_ascii_uppercase() {
        id.push(first);
    }
    while let Some(&(_, c)) = chars.peek() {
        if !c.is_ascii_alphabetic() {
            break;
        }
        if c.is_ascii_uppercase() {
            id.push(c);
        }
        chars.next();
    }
    if id.is_empty() {
        return Err((start, "a property name needs an upper-case letter".into()));
    }
    let mut values = Vec::new();
    loop {
        while chars.peek().is_some_and(|&(_, c)| c.is_whitespace()) {
            chars.next();
        }
        match chars.peek() {
            Some(&(at, '[')) => {
                chars.next();
                values.push(value(chars).ok_or((
                    at,
                    format!("the value of {id} is not closed: a `]` is missing"),
                ))?);
            }
            _ => break,
        }
    }
    if values.is_empty() {
        return Err((start, format!("property {id} has no value: expected `[`")));
    }
    Ok(Prop {
        id,
        values,
        at: TextPos::of(text, start),
    })
}

/// A value after its `[`, up to the `]` that closes it: `\` escapes the next
/// character, and a `\` before a line break removes both (a soft break).
fn value(chars: &mut Chars<'_>) -> Option<String> {
    let mut v = String::new();
    loop {
        let (_, c) = chars.next()?;
        match c {
            ']' => return Some(v),
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    '\n' => {
                        if chars.peek().is_some_and(|&(_, c)| c == '\r') {
                            chars.next();
                        }
                    }
                    '\r' => {
                        if chars.peek().is_some_and(|&(_, c)| c == '\n') {
                            chars.next();
                        }
                    }
                    e => v.push(e),
                }
            }
            c => v.push(c),
        }
    }
}

/// A text value written between brackets: `\` and `]` escaped.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\\' || c == ']' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(nodes: &[Node]) -> Vec<String> {
        nodes
            .iter()
            .map(|n| {
                n.props
                    .iter()
                    .map(|p| format!("{}{:?}", p.id, p.values))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn the_main_line_is_the_first_variation() {
        let games =
            main_lines("junk (;FF[4]C[a\\]b\\\\c];B[aa](;W[bb];B[cc](;W[x])(;W[y]))(;W[dd])) more")
                .unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(
            ids(&games[0]),
            [
                r#"FF["4"] C["a]b\\c"]"#,
                r#"B["aa"]"#,
                r#"W["bb"]"#,
                r#"B["cc"]"#,
                r#"W["x"]"#
            ]
        );
        let two = main_lines("(;GM[1])\n(;GM[1]AB[aa][bb]\nPL[W])").unwrap();
        assert_eq!(two.len(), 2);
        assert_eq!(two[1][0].get("AB").unwrap().values, ["aa", "bb"]);
        assert_eq!(
            two[1][0].get("PL").unwrap().at,
            TextPos { line: 3, column: 1 }
        );
        // Old lower-case letters in names are skipped; soft line breaks removed.
        let old = main_lines("(;GaMe[1]C[one\\\ntwo])").unwrap();
        assert_eq!(ids(&old[0]), [r#"GM["1"] C["onetwo"]"#]);
    }

    #[test]
    fn bad_texts_are_refused_with_their_place() {
        for (text, needle, line, column) in [
            ("(;B[aa]", "not closed", 1, 8),
            ("(;B[aa", "`]` is missing", 1, 4),
            ("(B[aa])", "outside a node", 1, 2),
            ("(;b[aa])", "upper-case", 1, 3),
            ("(;B)", "no value", 1, 3),
            ("(;B[]\n  ?)", "unexpected `?`", 2, 3),
            ("(;B[](;W[])(;W[]);B[])", "after a variation", 1, 18),
        ] {
            let e = main_lines(text).unwrap_err();
            assert!(e.to_string().contains(needle), "{text}: {e}");
            assert_eq!(e.at, Some(TextPos { line, column }), "{text}: {e}");
        }
        assert_eq!(main_lines("no tree here").unwrap().len(), 0);
    }

    #[test]
    fn a_collection_splits_into_its_trees() {
        let text = "(;C[a (b) ]])\n\n(;C[\\]]) ";
        assert_eq!(split_trees(text), ["(;C[a (b) ]])", "(;C[\\]])"]);
        assert_eq!(split_trees("(;C[x"), ["(;C[x"]);
        assert_eq!(split_trees(""), [""]);
        assert_eq!(escape("a]b\\c"), "a\\]b\\\\c");
    }
}
