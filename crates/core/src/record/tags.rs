//! The tags of a game record, one type for every format (PGN, PDN, the Tablut
//! record): the Seven Tag Roster less `Result`, which each record derives from its
//! game, and the other tags in the order they were read or set. Each format keeps
//! its own tags of the game (`FEN`, `GameType`, Tablut's rule options) and its own
//! way of writing a value; what is here is only what the user and the file say.

/// A record's tags. Values are kept as given; `Tags::filled` writes `?` for the
/// empty ones, as the formats want for unknown values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tags {
    /// The Event tag: the tournament or match.
    pub event: String,
    /// The Site tag: where the game is played.
    pub site: String,
    /// `YYYY.MM.DD`, `?` for unknown digits.
    pub date: String,
    /// The Round tag.
    pub round: String,
    /// The player of the white pieces.
    pub white: String,
    /// The player of the black pieces.
    pub black: String,
    /// Tags beyond the roster, in order.
    pub extra: Vec<(String, String)>,
}

impl Tags {
    /// Names of the roster's tags in record order (the Seven Tag Roster less Result).
    pub(crate) const NAMES: [&'static str; 6] =
        ["Event", "Site", "Date", "Round", "White", "Black"];

    /// A new record's tags: every value unknown.
    pub(crate) fn unknown() -> Tags {
        Tags {
            event: "?".into(),
            site: "?".into(),
            date: "????.??.??".into(),
            round: "?".into(),
            white: "?".into(),
            black: "?".into(),
            extra: Vec::new(),
        }
    }

    /// The roster's values in the order of `NAMES`.
    pub(crate) fn roster(&self) -> [(&'static str, &str); 6] {
        let values = [
            &self.event,
            &self.site,
            &self.date,
            &self.round,
            &self.white,
            &self.black,
        ];
        std::array::from_fn(|i| (Tags::NAMES[i], values[i].as_str()))
    }

    /// The roster's values in the order of `NAMES`, `?` where empty.
    pub(crate) fn values(&self) -> [String; 6] {
        self.roster().map(|(_, v)| or_unknown(v))
    }

    /// The same tags, `?` for every empty roster value: what a record starts with.
    pub(crate) fn filled(&self) -> Tags {
        let [event, site, date, round, white, black] = self.values();
        Tags {
            event,
            site,
            date,
            round,
            white,
            black,
            extra: self.extra.clone(),
        }
    }

    fn slot(&mut self, name: &str) -> Option<&mut String> {
        Some(match name {
            "Event" => &mut self.event,
            "Site" => &mut self.site,
            "Date" => &mut self.date,
            "Round" => &mut self.round,
            "White" => &mut self.white,
            "Black" => &mut self.black,
            _ => return None,
        })
    }

    /// A tag's value: a roster tag's, or the first other tag of that name.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        match self.roster().iter().find(|(n, _)| *n == name) {
            Some((_, v)) => Some(v),
            None => self
                .extra
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str()),
        }
    }

    /// Sets a tag: a roster tag's value, or another tag's (replaced where it is
    /// already, added at the end otherwise).
    pub(crate) fn set(&mut self, name: &str, value: &str) {
        if let Some(slot) = self.slot(name) {
            *slot = value.to_string();
            return;
        }
        match self.extra.iter_mut().find(|(n, _)| n == name) {
            Some(tag) => tag.1 = value.to_string(),
            None => self.extra.push((name.to_string(), value.to_string())),
        }
    }

    /// Whether `name` is one of the roster's.
    pub(crate) fn in_roster(name: &str) -> bool {
        Tags::NAMES.contains(&name)
    }
}

fn or_unknown(s: &str) -> String {
    if s.trim().is_empty() {
        "?".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roster_tags_go_to_their_place_and_others_keep_their_order() {
        let mut t = Tags::unknown();
        t.set("White", "Anna");
        t.set("Board", "3");
        t.set("Annotator", "x");
        t.set("Board", "4");
        assert_eq!(t.white, "Anna");
        assert_eq!(t.get("White"), Some("Anna"));
        assert_eq!(t.get("Date"), Some("????.??.??"));
        assert_eq!(
            t.extra,
            [
                ("Board".into(), "4".into()),
                ("Annotator".into(), "x".into())
            ]
        );
        assert_eq!(t.get("Missing"), None);
    }

    #[test]
    fn empty_values_are_filled_with_unknown() {
        let t = Tags {
            white: "Anna".into(),
            date: " ".into(),
            ..Tags::default()
        };
        let f = t.filled();
        assert_eq!(f.values(), ["?", "?", "?", "?", "Anna", "?"]);
        assert_eq!(f.roster()[4], ("White", "Anna"));
    }
}
