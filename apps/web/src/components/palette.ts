/**
 * The dashboard's chart colours, one per series, told apart by most people with a colour vision
 * deficiency (Okabe and Ito's palette, darkened for contrast on white).
 */
export const COLORS = [
  '#0a5bd3',
  '#b35806',
  '#1a7f37',
  '#cc3d8f',
  '#0b7c94',
  '#7a5c00',
  '#6639ba',
  '#24292f',
];
