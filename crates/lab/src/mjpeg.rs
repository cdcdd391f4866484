//! A small Motion-JPEG server on the loopback, for soak benchmarks and tests of a
//! stream that stalls and comes back: it sends JPEG frames one after another over
//! HTTP, and at the points a [`StallPlan`] names it stops sending, drops the
//! connection and takes none for a while, as a camera on a flaky network does.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When the server goes quiet.
#[derive(Clone, Debug, Default)]
pub struct StallPlan {
    /// After this many frames sent in all, a stall of so many seconds: the
    /// connection hangs, then is dropped, and new ones are refused until it ends.
    pub stalls: Vec<(usize, f64)>,
    /// Frames to send in all; then the connection closes and no other is taken.
    pub total: usize,
    /// Frames a second to send at most (0: as fast as the reader reads).
    pub fps: f64,
    /// The first frames sent at once, whatever `fps`: what a reader probes the
    /// stream's format with before it hands on any frame.
    pub burst: usize,
}

/// A running server; stopped when dropped.
pub struct MjpegServer {
    /// Where the stream is served.
    pub url: String,
    /// Frames sent so far.
    pub sent: Arc<AtomicUsize>,
    /// Connections taken so far.
    pub connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl MjpegServer {
    /// Serves `frames` (JPEG files' bytes) in a loop, forward then back, on
    /// `127.0.0.1` at a free port.
    pub fn start(frames: Vec<Vec<u8>>, plan: StallPlan) -> std::io::Result<MjpegServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let url = format!("http://{}/stream.mjpg", listener.local_addr()?);
        let sent = Arc::new(AtomicUsize::new(0));
        let connections = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, c, st) = (sent.clone(), connections.clone(), stop.clone());
        let thread = std::thread::spawn(move || serve(listener, frames, plan, s, c, st));
        Ok(MjpegServer {
            url,
            sent,
            connections,
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for MjpegServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(
    listener: TcpListener,
    frames: Vec<Vec<u8>>,
    plan: StallPlan,
    sent: Arc<AtomicUsize>,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) {
    let n = frames.len();
    if n == 0 {
        return;
    }
    // Forward then back: frame indices 0, 1, .., n-1, n-2, .., 1, 0, 1, ...
    let period = (2 * n).saturating_sub(2).max(1);
    let mut refuse_until: Option<Instant> = None;
    let mut stalls = plan.stalls.clone();
    stalls.sort_by_key(|s| s.0);
    let mut stalls = stalls.into_iter().peekable();
    while !stop.load(Ordering::SeqCst) && sent.load(Ordering::SeqCst) < plan.total {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(_) => {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
        };
        if refuse_until.is_some_and(|t| Instant::now() < t) {
            drop(stream);
            continue;
        }
        connections.fetch_add(1, Ordering::SeqCst);
        let _ = stream.set_nonblocking(false);
        let mut stream = stream;
        if read_request(&mut stream).is_err() {
            continue;
        }
        let head = "HTTP/1.0 200 OK\r\nContent-Type: video/x-motion-jpeg\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            continue;
        }
        let started = Instant::now();
        let at_start = sent.load(Ordering::SeqCst);
        loop {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            let k = sent.load(Ordering::SeqCst);
            if k >= plan.total {
                break;
            }
            if let Some(&(at, seconds)) = stalls.peek() {
                if k >= at {
                    stalls.next();
                    // Hang with the connection open, then drop it and refuse new
                    // ones for the rest of the stall.
                    let until = Instant::now() + Duration::from_secs_f64(seconds);
                    let hang = Instant::now() + Duration::from_secs_f64(seconds / 2.0);
                    while Instant::now() < hang && !stop.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    refuse_until = Some(until);
                    break;
                }
            }
            let i = k % period;
            let frame = &frames[if i < n { i } else { period - i }.min(n - 1)];
            if stream.write_all(frame).is_err() {
                break;
            }
            sent.fetch_add(1, Ordering::SeqCst);
            if plan.fps > 0.0 && k + 1 > plan.burst {
                let paced = (k + 1 - at_start.max(plan.burst)) as f64;
                let due = started + Duration::from_secs_f64(paced / plan.fps);
                if let Some(wait) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
            }
        }
    }
}

/// Reads the request head (up to the blank line), whatever it asks.
fn read_request(stream: &mut TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") && buf.len() < 16_384 {
        if stream.read(&mut byte)? == 0 {
            break;
        }
        buf.push(byte[0]);
    }
    Ok(())
}
