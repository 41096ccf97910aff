#!/usr/bin/env bash
# Makes the barge-in audio set the media server's interruption test plays over the agent's speech:
# 20 true interruptions, 20 backchannels and 20 noise bursts, as the caller's side of a phone call
# (8 kHz, 16-bit mono WAV, trimmed to start with the sound), and set.json, which says what each holds.
# Speech is eSpeak NG's, noise is sox's; the files are committed, so the test needs neither. Run it
# again (needs espeak-ng and sox) only to change the set.
set -euo pipefail
cd "$(dirname "$0")/../test-audio/barge-in"
rm -f ./*.wav set.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One line a clip: file, kind, transcript, description.
add() { printf '%s.wav\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$work/set.tsv"; }

# To the phone line: 8 kHz mono 16-bit, band-limited as a call is, the leading silence trimmed.
to_line() { sox "$1" -r 8000 -c 1 -b 16 -e signed-integer "$2" highpass 300 lowpass 3400 silence 1 0.01 0.5% reverse silence 1 0.01 0.5% reverse norm -3; }

speak() { # name voice speed text
  espeak-ng -v "$2" -s "$3" -w "$work/$1.raw.wav" "$4"
  to_line "$work/$1.raw.wav" "$1.wav"
}

# True interruptions: a caller who means to take the turn, in several voices and speeds; four over
# street noise.
i=0
while IFS='|' read -r voice speed text; do
  i=$((i + 1)); name=$(printf 'true-%02d' "$i")
  speak "$name" "$voice" "$speed" "$text"
  add "$name" interruption "$text" "eSpeak NG $voice at $speed wpm"
done <<'LIST'
en-us|175|Sorry, can I stop you there?
en-gb|160|Wait, I have a question about my bill.
en-us+f3|185|Actually I need to change the time.
en-gb-scotland|170|Hold on, that is not what I asked.
en-029|165|No no, I already paid for that.
en-us+m3|190|Can you repeat the last part please?
en-gb-x-rp|175|Excuse me, who am I speaking with?
en-us+f2|160|I want to cancel my appointment.
en-gb+f4|180|Stop, I am not interested, thank you.
en-us|200|Just a second, let me get a pen.
en-gb-x-gbclan|170|That is the wrong address.
en-us+m1|165|Can I talk to a real person?
en-gb+m2|185|Hang on, what was the price again?
en-us+f4|175|I think you have the wrong number.
he|160|רגע, יש לי שאלה על החשבון
he+f3|170|סליחה, אני רוצה לשנות את התור
LIST
# Four more over street noise (brown noise at -22 dB under the words).
while IFS='|' read -r voice speed text; do
  i=$((i + 1)); name=$(printf 'true-%02d' "$i")
  espeak-ng -v "$voice" -s "$speed" -w "$work/$name.raw.wav" "$text"
  to_line "$work/$name.raw.wav" "$work/$name.clean.wav"
  length=$(soxi -D "$work/$name.clean.wav")
  sox -n -r 8000 -c 1 -b 16 -e signed-integer "$work/$name.noise.wav" synth "$length" brownnoise vol -22dB
  sox -m "$work/$name.clean.wav" "$work/$name.noise.wav" "$name.wav" norm -3
  add "$name" interruption "$text" "eSpeak NG $voice at $speed wpm over street noise"
done <<'LIST'
en-us|175|Wait, wait, that is too early for me.
en-gb|170|Sorry to interrupt, is this about my order?
en-us+f3|180|Okay but how much will it cost?
en-us+m3|170|Yeah but I already told you that.
LIST

# Backchannels: short acknowledgements a listener gives without taking the turn. eSpeak NG reads
# Hebrew only with its vowel points: a fourth field is then the words as a transcript writes them.
i=0
while IFS='|' read -r voice speed text written; do
  i=$((i + 1)); name=$(printf 'backchannel-%02d' "$i")
  speak "$name" "$voice" "$speed" "$text"
  add "$name" backchannel "${written:-$text}" "eSpeak NG $voice at $speed wpm"
done <<'LIST'
en-us|160|uh-huh
en-gb|150|uh-huh
en-us+f3|170|mm-hmm
en-us|180|yeah
en-gb+m2|160|yeah
en-us+f2|170|ok
en-gb-scotland|160|okay
en-us|150|mm
en-us+m3|170|right
en-gb+f4|165|sure
en-029|170|yes
en-us+f4|180|I see
en-gb-x-rp|170|got it
en-us|175|yep
en-gb|160|okay, okay
en-us+m1|170|yeah, right
he|160|כן
he+f3|150|אַהָה|אהה
he|170|בסדר
he+f3|160|נכון
LIST

# Noise bursts: coughs, doors, street and music, the sounds that come down a phone line.
noise() { # name description sox-effects...
  local name=$1 description=$2
  shift 2
  sox -n -r 8000 -c 1 -b 16 -e signed-integer "$work/$name.raw.wav" "$@"
  to_line "$work/$name.raw.wav" "$name.wav"
  add "$name" noise "" "$description"
}
noise noise-01 'cough: a burst of pink noise, sharp attack' synth 0.25 pinknoise fade q 0.01 0.25 0.2
noise noise-02 'cough: two bursts' synth 0.2 brownnoise fade q 0.01 0.2 0.15 repeat 1
noise noise-03 'cough: a long rasp' synth 0.45 pinknoise lowpass 1500 tremolo 30 60 fade q 0.02 0.45 0.3
noise noise-04 'cough: white-noise hack' synth 0.3 whitenoise bandpass 1200 800 fade q 0.01 0.3 0.25
noise noise-05 'cough: three short bursts' synth 0.12 pinknoise fade q 0.005 0.12 0.1 pad 0 0.08 repeat 2
noise noise-06 'door: a slam (low thump)' synth 0.3 sine 70 fade q 0 0.3 0.28 overdrive 10
noise noise-07 'door: three knocks' synth 0.06 brownnoise fade q 0 0.06 0.05 pad 0 0.2 repeat 2
noise noise-08 'door: a creak' synth 0.8 sawtooth 180-260 tremolo 12 80 vol 0.5
noise noise-09 'door: latch click and thud' synth 0.04 whitenoise pad 0 0.1 synth 0.2 sine mix 90 fade q 0 0.34 0.2
noise noise-10 'door: a heavy slam with rattle' synth 0.5 brownnoise lowpass 400 fade q 0 0.5 0.45 tremolo 25 50
noise noise-11 'street: traffic rumble' synth 1.5 brownnoise lowpass 600 fade q 0.3 1.5 0.3
noise noise-12 'street: a passing car' synth 1.8 pinknoise lowpass 1000 fade t 0.9 1.8 0.9
noise noise-13 'street: a car horn' synth 0.6 square 420 square mix 520 vol 0.4
noise noise-14 'street: wind' synth 1.5 pinknoise bandpass 500 400 tremolo 0.7 60
noise noise-15 'street: a siren' synth 1.5 sine 700-1200 vol 0.5
noise noise-16 'music: a major chord' synth 1.2 pluck C4 pluck mix E4 pluck mix G4
noise noise-17 'music: a melody' synth 0.25 triangle 440 synth 0.25 triangle mix 0 : synth 0.25 triangle 494 : synth 0.25 triangle 523 : synth 0.25 triangle 587
noise noise-18 'music: a bass line and drums' synth 0.2 sine 98 fade q 0 0.2 0.15 pad 0 0.05 repeat 4
noise noise-19 'music: an organ chord' synth 1.2 square C3 square mix G3 square mix C4 lowpass 2000 vol 0.3
noise noise-20 'music: a strummed guitar' synth 1.2 pluck E2 pluck mix B2 pluck mix E3 pluck mix G3 tremolo 4 40

node -e '
const fs = require("fs");
const clips = fs.readFileSync(process.argv[1], "utf8").trim().split("\n").map((line) => {
  const [file, kind, transcript, description] = line.split("\t");
  return { file, kind, transcript, description };
});
fs.writeFileSync("set.json", JSON.stringify(clips, null, 2) + "\n");
' "$work/set.tsv"
echo "$(ls ./*.wav | wc -l) clips"
