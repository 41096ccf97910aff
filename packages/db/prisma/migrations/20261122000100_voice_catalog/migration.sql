-- The voice catalog: the union of the two voice sets the API documents. `id` is the older API's
-- `voice_id`; agents reference voices by id and the current API by display name.
INSERT INTO "voices" ("id", "display_name", "provider", "provider_id", "gender", "language", "model") VALUES
  ('he-sapir',   'Sapir',   'azure', 'he-IL-SapirNeural',   'female', 'he-IL', 'neural'),
  ('en-steve',   'Steve',   'azure', 'en-US-SteveNeural',   'male',   'en-US', 'neural'),
  ('he-sivan',   'Sivan',   'azure', 'he-IL-SivanNeural',   'female', 'he-IL', 'neural'),
  ('he-saar',    'Saar',    'azure', 'he-IL-SaarNeural',    'male',   'he-IL', 'neural'),
  ('he-ori',     'Ori',     'azure', 'he-IL-OriNeural',     'male',   'he-IL', 'neural'),
  ('he-yael',    'Yael',    'azure', 'he-IL-YaelNeural',    'female', 'he-IL', 'neural'),
  ('he-guy',     'Guy',     'azure', 'he-IL-GuyNeural',     'male',   'he-IL', 'neural'),
  ('he-gefen',   'Gefen',   'azure', 'he-IL-GefenNeural',   'female', 'he-IL', 'neural'),
  ('he-gal',     'Gal',     'azure', 'he-IL-GalNeural',     'female', 'he-IL', 'neural'),
  ('en-gabriel', 'Gabriel', 'azure', 'en-US-GabrielNeural', 'male',   'en-US', 'neural'),
  ('he-keren',   'Keren',   'azure', 'he-IL-KerenNeural',   'female', 'he-IL', 'neural'),
  ('he-karmit',  'Karmit',  'azure', 'he-IL-KarmitNeural',  'female', 'he-IL', 'neural'),
  ('he-kobi',    'Kobi',    'azure', 'he-IL-KobiNeural',    'male',   'he-IL', 'neural'),
  ('he-kfir',    'Kfir',    'azure', 'he-IL-KfirNeural',    'male',   'he-IL', 'neural'),
  ('he-dana',    'Dana',    'azure', 'he-IL-DanaNeural',    'female', 'he-IL', 'neural'),
  ('he-dafna',   'Dafna',   'azure', 'he-IL-DafnaNeural',   'female', 'he-IL', 'neural'),
  ('he-dorin',   'Dorin',   'azure', 'he-IL-DorinNeural',   'female', 'he-IL', 'neural'),
  ('he-dan',     'Dan',     'azure', 'he-IL-DanNeural',     'male',   'he-IL', 'neural'),
  ('he-dor',     'Dor',     'azure', 'he-IL-DorNeural',     'male',   'he-IL', 'neural'),
  ('he-david',   'David',   'azure', 'he-IL-DavidNeural',   'male',   'he-IL', 'neural');
