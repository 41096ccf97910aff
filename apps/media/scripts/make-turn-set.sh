#!/usr/bin/env bash
# Makes the turn-taking audio set `pnpm bench turns` plays as callers: 40 unfinished sentences, said in
# two halves with a pause of 0.5 to 1.5 s between them ("I'd like to book … an appointment for
# Tuesday"), and 20 finished ones, in English and Hebrew, as the caller's side of a phone call (8 kHz,
# 16-bit mono WAV, band-limited, trimmed to the sound), and set.json, which says what each holds.
# Speech is eSpeak NG's; the files are committed, so the bench needs neither program. Run it again
# (needs espeak-ng and sox) only to change the set.
#
# Each part's `words` are what speech-to-text writes for it, which the bench's speech-to-text emulator
# answers with: digits as digits; a first half without closing punctuation (the sentence is cut off),
# a second half and a finished sentence with it. eSpeak NG reads unpointed Hebrew well enough here. No
# half holds a comma: eSpeak pauses at one, and the pause could split the half in two.
set -euo pipefail
cd "$(dirname "$0")/../test-audio/turns"
rm -f ./*.wav set.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# To the phone line: 8 kHz mono 16-bit, band-limited as a call is, silence trimmed from both ends.
to_line() { sox "$1" -r 8000 -c 1 -b 16 -e signed-integer "$2" highpass 300 lowpass 3400 silence 1 0.01 0.5% reverse silence 1 0.01 0.5% reverse norm -3; }

speak() { # file voice speed text
  espeak-ng -v "$2" -s "$3" -w "$work/$1.raw.wav" "$4"
  to_line "$work/$1.raw.wav" "$1"
}

# One JSON entry a line, joined into set.json at the end.
entry() { # kind language pauseMs description file words [file words]
  node -e '
const [kind, language, pauseMs, description, ...rest] = process.argv.slice(1);
const parts = [];
for (let i = 0; i < rest.length; i += 2) parts.push({ file: rest[i], words: rest[i + 1] });
const pause = pauseMs ? { pauseMs: Number(pauseMs) } : {};
console.log(JSON.stringify({ kind, language, parts, ...pause, description }));
' "$@" >> "$work/set.jsonl"
}

# The pauses the unfinished sentences take in turn: 0.5 to 1.5 s, each about equally often.
pauses=(500 900 1300 700 1100 1500 600 1000 1400 800 1200)

# Unfinished: voice|speed|first half|second half, then optionally the halves as written when that
# differs from what eSpeak is given to say (digits).
i=0
while IFS='|' read -r voice speed first second first_written second_written; do
  i=$((i + 1)); name=$(printf 'unfinished-%02d' "$i")
  pause=${pauses[$(((i - 1) % ${#pauses[@]}))]}
  speak "$name-a.wav" "$voice" "$speed" "$first"
  speak "$name-b.wav" "$voice" "$speed" "$second"
  case $voice in he*) language=he ;; *) language=en ;; esac
  entry unfinished "$language" "$pause" "eSpeak NG $voice at $speed wpm, a $pause ms pause" \
    "$name-a.wav" "${first_written:-$first}" "$name-b.wav" "${second_written:-$second}"
done <<'LIST'
en-us|170|I'd like to book|an appointment for Tuesday.
en-gb|160|My number is four one five|five five five zero one nine nine.|My number is 415|555 0199.
en-us+f3|180|The thing is|I can't make it on Monday.
en-gb-scotland|165|So I was wondering if|you could call me back.
en-029|170|I need to change|the time of my appointment.
en-us+m3|190|Can you tell me|what time you open on Saturday?
en-gb-x-rp|175|I was calling about|the bill I got last week.
en-us+f2|160|Could you send me|the address of the clinic?
en-gb+f4|180|What I really need is|someone to look at my shoulder.
en-us|200|My account number is|seven seven three nine two one.||773921.
en-gb-x-gbclan|170|I'm trying to find out|whether you take my insurance.
en-us+m1|165|We would like to reserve|a table for four at seven.
en-gb+m2|185|The reason I'm calling is|to cancel my order.
en-us+f4|175|Is it possible to|move my appointment to Friday?
en-us|150|I spoke to someone yesterday and|they said you would call me.
en-gb|175|My name is|David Cohen.
en-us+f3|165|The package was supposed to arrive|on Monday but it never came.
en-gb-scotland|180|I'm not sure if|I'm calling the right place.
en-us+m3|160|I want to ask about|the price of the cleaning.
en-029|185|My zip code is|nine four one zero three.||94103.
en-gb-x-rp|160|If it's not too much trouble|could you check my order?
en-us+f2|190|I think I left|my glasses at your office.
en-gb+f4|170|Do you have anything available|later this afternoon?
en-us+m1|180|My wife and I want to|come in together next week.
en-gb-x-gbclan|165|I was told that|I need to bring my passport.
en-us|175|The best number to reach me is|six five zero five five five zero one two three.||650 555 0123.
en-gb+m2|160|What I'm looking for is|a room with two beds.
en-us+f4|185|I'm calling because|my order arrived damaged.
he|160|אני רוצה לקבוע|תור ליום שלישי.
he+f3|170|המספר שלי הוא|אפס חמש שתיים חמש חמש חמש אחת שתיים שלוש ארבע.||052 555 1234.
he|150|רציתי לשאול אם|אפשר לדחות את הפגישה.
he+f3|160|הבעיה היא|שאני לא יכול להגיע ביום שני.
he|175|אפשר לדבר עם|מישהו ממחלקת השירות?
he+f3|150|קבעתי תור אצל|הרופא ביום חמישי.
he|165|אני צריך לשנות את|השעה של התור.
he+f3|180|רציתי לדעת מתי|אתם פותחים ביום שישי.
he|170|תעודת הזהות שלי היא|אפס שלוש ארבע חמש שש שבע.||034567.
he+f3|165|ההזמנה שלי הייתה אמורה|להגיע אתמול.
he|170|אני מחפש|דירה עם שלושה חדרים.
he+f3|175|אני מתקשרת בקשר|לחשבון של החודש שעבר.
LIST

# Finished: voice|speed|sentence, then optionally the sentence as written.
i=0
while IFS='|' read -r voice speed text written; do
  i=$((i + 1)); name=$(printf 'finished-%02d' "$i")
  speak "$name.wav" "$voice" "$speed" "$text"
  case $voice in he*) language=he ;; *) language=en ;; esac
  entry finished "$language" '' "eSpeak NG $voice at $speed wpm" "$name.wav" "${written:-$text}"
done <<'LIST'
en-us|170|I'd like to book an appointment for Tuesday.
en-gb|165|Can you call me back tomorrow morning?
en-us+f3|180|I can't make it on Monday.
en-gb-scotland|170|What time do you close today?
en-029|160|I want to cancel my order.
en-us+m3|185|My name is Sarah Miller.
en-gb-x-rp|175|Yes that works for me.
en-us+f2|165|Do you take credit cards?
en-gb+f4|180|I will be there at three.
en-us+m1|170|Please send the bill to my email.
en-gb+m2|160|No thank you.
en-us+f4|190|Is the doctor in on Friday?
en-us|175|My number is four one five five five five zero one nine nine.|My number is 415 555 0199.
en-gb-x-gbclan|165|That sounds great.
he+f3|160|אני רוצה לקבוע תור ליום שלישי.
he|170|מתי אתם סוגרים היום?
he|165|אני לא יכול להגיע ביום שני.
he+f3|155|תודה רבה.
he|175|אפשר לדבר עם מישהו מהשירות?
he+f3|165|ההזמנה שלי לא הגיעה.
LIST

node -e '
const fs = require("fs");
const entries = fs.readFileSync(process.argv[1], "utf8").trim().split("\n").map((line) => JSON.parse(line));
fs.writeFileSync("set.json", JSON.stringify(entries, null, 2) + "\n");
' "$work/set.jsonl"
echo "$(ls ./*.wav | wc -l) files, $(grep -c '"kind"' set.json) utterances"
