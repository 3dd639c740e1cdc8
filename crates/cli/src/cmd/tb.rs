//! `iblink tb`: the default testbenches, with waveforms.

use anyhow::Context;
use clap::{Args, Subcommand};
use iblink_rtl::crc16::Crc16In;
use iblink_sim::blocks::crc16::{crc16_sim, crc16_through, Crc16Stimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::{lockstep, CycleSim};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum TbCmd {
    /// The CRC-16 unit: docs/spec.md §3's vectors, then random lockstep of all back ends.
    Crc16(Crc16Tb),
}

#[derive(Args, Debug)]
pub struct Crc16Tb {
    #[arg(long, default_value_t = 32)]
    pub width: usize,
    /// Random cycles to run in lockstep.
    #[arg(long, default_value_t = 200_000)]
    pub cycles: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Directory for the VCD waveforms (the spec vectors and the first random cycles).
    #[arg(long, default_value = "build/tb")]
    pub vcd_dir: PathBuf,
    /// Random cycles included in the waveforms.
    #[arg(long, default_value_t = 2_000)]
    pub vcd_cycles: usize,
}

pub fn run(cmd: TbCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        TbCmd::Crc16(t) => crc16(t),
    }
}

fn crc16(t: Crc16Tb) -> anyhow::Result<ExitCode> {
    let w = t.width;
    std::fs::create_dir_all(&t.vcd_dir).with_context(|| format!("creating {}", t.vcd_dir.display()))?;
    // Traced run: every back end, the spec's vectors, then the first random cycles.
    let vectors: [(&[u8], u16); 2] = [(b"123456789", 0x0a3d), (&[0x10, 0, 0, 0], 0x0558)];
    let mut waves = Vec::new();
    let mut sims = Vec::new();
    for b in Backend::ALL {
        let vcd = (b != Backend::Model).then(|| t.vcd_dir.join(format!("crc16_w{w}_{}.vcd", b.name())));
        let mut s = crc16_sim(w, b, vcd.as_deref())?;
        for (bytes, want) in vectors {
            let got = crc16_through(s.as_mut(), w, bytes);
            if got != want {
                eprintln!("FAIL {}: CRC of {bytes:02x?} is {got:04x}, docs/spec.md §3 says {want:04x}", b.name());
                return Ok(ExitCode::from(1));
            }
        }
        waves.extend(vcd);
        sims.push(s);
    }
    println!("crc16 w{w}: docs/spec.md §3 vectors (123456789 -> 0a3d, 10 00 00 00 -> 0558) agree in model, rtl, verilator");
    let mut refs: Vec<&mut dyn CycleSim<In = Crc16In, Out = _>> = sims.iter_mut().map(|s| s.as_mut() as _).collect();
    let traced = lockstep(&mut refs, Crc16Stimulus::new(w, t.seed).take(t.vcd_cycles));
    drop(refs);
    drop(sims); // closes the waveforms
    if let Err(m) = traced {
        eprintln!("FAIL {m}");
        return Ok(ExitCode::from(1));
    }
    // The long run, untraced, with a progress bar.
    let mut sims: Vec<_> = Backend::ALL.iter().map(|b| crc16_sim(w, *b, None)).collect::<Result<_, _>>()?;
    let mut refs: Vec<&mut dyn CycleSim<In = Crc16In, Out = _>> = sims.iter_mut().map(|s| s.as_mut() as _).collect();
    let bar = ProgressBar::new(t.cycles as u64).with_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} cycles").unwrap(),
    );
    bar.set_message(format!("crc16 w{w} lockstep"));
    let mut stim = Crc16Stimulus::new(w, t.seed.wrapping_add(1));
    let mut done = 0usize;
    let chunk = 50_000;
    while done < t.cycles {
        let n = chunk.min(t.cycles - done);
        if let Err(mut m) = lockstep(&mut refs, stim.by_ref().take(n)) {
            bar.abandon();
            m.cycle += done as u64;
            eprintln!("FAIL {m}");
            return Ok(ExitCode::from(1));
        }
        done += n;
        bar.set_position(done as u64);
    }
    bar.finish_and_clear();
    println!("crc16 w{w}: {} random cycles in lockstep (model, rtl, verilator): 0 mismatches", t.cycles);
    for p in waves {
        println!("waveform: {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}
