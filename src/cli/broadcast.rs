//! `boardscribe broadcast --nats URL --event NAME --round R --out DIR`: the boards
//! of a round recorded on other machines (`event --nats`), rebuilt from NATS
//! JetStream, served as `event` serves its own, and written to DIR.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::signals;
use crate::record::today;
use crate::record::Lock;
use crate::runner;
use boardscribe_round::nats;

#[derive(Args, Debug)]
pub struct BroadcastArgs {
    /// The NATS server the recorders publish to (nats://HOST:4222).
    #[arg(long, value_name = "URL")]
    pub nats: String,
    /// The event's name, as the recorders' round file gives it ([event] name).
    #[arg(long, value_name = "NAME")]
    pub event: String,
    /// The round, as the recorders' round file gives it ([event] round).
    #[arg(long, value_name = "R")]
    pub round: String,
    /// Where each board's record (board-N.pgn, .pdn, .txt) and round.pgn are written.
    #[arg(long)]
    pub out: PathBuf,
    /// Where the live page listens; 127.0.0.1 keeps it to this machine, 0.0.0.0:PORT
    /// opens it to the network.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
}

pub fn run(a: BroadcastArgs) -> anyhow::Result<()> {
    let stop = signals::install();
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot make the folder '{}'", a.out.display()))?;
    // One writer per folder: a second broadcast (or an `event`) is refused.
    let _lock = Lock::folder(&a.out, &super::command_line())?;
    let token = runner::new_token()?;
    let b = nats::broadcast(&a.nats, &a.event, &a.round, today(), &a.out, token.clone())?;
    let server = crate::server::start(b.round.clone(), &a.listen)?;
    let base = format!("http://{}", server.addr);
    eprintln!("reading NATS {} on {}", a.nats, b.subjects);
    eprintln!("live page: {base}/");
    eprintln!("round PGN for broadcasts: {base}/round.pgn");
    eprintln!("arbiter page: {base}/?token={token}");
    eprintln!("arbiter token: {token}");
    eprintln!("records in {}", a.out.display());
    while !stop.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    b.finish(std::time::Duration::from_secs(10));
    eprintln!(
        "stopping: the records in {} stand as last received",
        a.out.display()
    );
    Ok(())
}
