/**
 * What the agent says of its own when the conversation cannot go on as the model would have it, in the
 * agent's language (English for a language without its own here).
 */

export interface Phrases {
  fallback: string;
  technicalGoodbye: string;
  silenceGoodbye: string;
  timeLimitGoodbye: string;
  /** Said to a caller who has been silent (the agent setting `reminder_after_ms`). */
  reminder: string;
  /** A warm transfer nobody took: the agent is back, and goes on (a flow agent says goodbye instead). */
  transferUnanswered: string;
  transferUnansweredGoodbye: string;
  /** Told to a colleague who answers a warm transfer after the caller has gone. */
  transferGone: string;
}

const ENGLISH: Phrases = {
  fallback: 'Sorry, I am having trouble hearing you right now. Could you say that again?',
  technicalGoodbye: 'I am sorry, we are having technical difficulties. Please call us back later. Goodbye.',
  silenceGoodbye: 'I have not heard from you, so I will end the call now. Goodbye.',
  timeLimitGoodbye: 'We have reached the time limit for this call. Thank you, goodbye.',
  reminder: 'Are you still there?',
  transferUnanswered:
    'I am sorry, none of my colleagues could take your call just now. Is there anything else I can help with?',
  transferUnansweredGoodbye:
    'I am sorry, none of my colleagues could take your call just now. Please call us back later. Goodbye.',
  transferGone: 'Sorry, the caller is no longer waiting. You can hang up.',
};

const HEBREW: Phrases = {
  fallback: 'סליחה, קשה לי לשמוע כרגע. אפשר לחזור על זה?',
  technicalGoodbye: 'מצטערים, יש לנו תקלה טכנית. אפשר להתקשר אלינו שוב מאוחר יותר. להתראות.',
  silenceGoodbye: 'לא שמעתי תשובה, אז אסיים עכשיו את השיחה. להתראות.',
  timeLimitGoodbye: 'הגענו למגבלת הזמן של השיחה. תודה ולהתראות.',
  reminder: 'הלו, עדיין על הקו?',
  transferUnanswered: 'מצטערים, אף אחד מהנציגים לא יכול לענות כרגע. אפשר לעזור במשהו אחר?',
  transferUnansweredGoodbye:
    'מצטערים, אף אחד מהנציגים לא יכול לענות כרגע. אפשר להתקשר אלינו שוב מאוחר יותר. להתראות.',
  transferGone: 'מצטערים, הלקוח כבר לא ממתין על הקו. אפשר לנתק.',
};

export function phrasesFor(language: string): Phrases {
  return language.toLowerCase().startsWith('he') ? HEBREW : ENGLISH;
}
