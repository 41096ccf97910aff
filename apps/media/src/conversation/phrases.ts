/** What the agent says of its own when the conversation cannot go on as the model would have it. */

export const FALLBACK = 'Sorry, I am having trouble hearing you right now. Could you say that again?';
export const TECHNICAL_GOODBYE =
  'I am sorry, we are having technical difficulties. Please call us back later. Goodbye.';
export const SILENCE_GOODBYE = 'I have not heard from you, so I will end the call now. Goodbye.';
export const TIME_LIMIT_GOODBYE = 'We have reached the time limit for this call. Thank you, goodbye.';
