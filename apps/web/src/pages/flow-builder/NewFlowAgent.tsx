import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, errorMessage, fieldError } from '../../api';
import { Field, SelectField } from '../../components/Field';

/** A new flow agent from a starting point: a blank flow or the appointment booking template. */
export function NewFlowAgentPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const voices = useQuery({ queryKey: ['voices.list'], queryFn: () => api.voices.list.query() });
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('en');
  const [voice, setVoice] = useState('');
  const [template, setTemplate] = useState<'blank' | 'appointment'>('appointment');
  // The first voice until another is chosen (the agent needs one: the form waits for the list).
  const chosenVoice = voice || voices.data?.voices[0]?.display_name || '';
  const create = useMutation({
    mutationFn: () =>
      api.flows.create.mutate({
        name,
        language,
        voice: chosenVoice,
        welcome_message: '',
        variables_provided: [],
        variables_extracted: [],
        template,
      }),
    onSuccess: (agent) => {
      void queryClient.invalidateQueries({ queryKey: ['agents.list'] });
      void navigate(`/agents/${agent.agent_id}/flow`);
    },
  });
  const error = create.error;
  return (
    <section>
      <p>
        <Link to="/agents">Agents</Link> /
      </p>
      <h1>New flow agent</h1>
      <form
        className="form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Field
          label="Name"
          name="name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={fieldError(error, 'name')}
        />
        <Field
          label="Language"
          name="language"
          hint="A language code: en, en-US, he"
          value={language}
          onChange={(event) => setLanguage(event.target.value)}
          error={fieldError(error, 'language')}
        />
        <SelectField
          label="Voice"
          name="voice"
          value={voice}
          onChange={(event) => setVoice(event.target.value)}
        >
          {voices.data?.voices.map((option) => (
            <option key={option.display_name} value={option.display_name}>
              {option.display_name} ({option.gender}, {option.language})
            </option>
          ))}
        </SelectField>
        <fieldset>
          <legend>Start from</legend>
          <label className="checkbox">
            <input
              type="radio"
              name="template"
              checked={template === 'appointment'}
              onChange={() => setTemplate('appointment')}
            />{' '}
            Appointment booking (ask name and date, check a calendar, confirm or offer another date)
          </label>
          <label className="checkbox">
            <input
              type="radio"
              name="template"
              checked={template === 'blank'}
              onChange={() => setTemplate('blank')}
            />{' '}
            A blank flow
          </label>
        </fieldset>
        {error && !fieldError(error, 'name') && !fieldError(error, 'language') && (
          <p role="alert" className="error">
            {errorMessage(error)}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={create.isPending || !chosenVoice}>
            Create and open the builder
          </button>
        </div>
      </form>
    </section>
  );
}
