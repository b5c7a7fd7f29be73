// The web chat: sign in (the console's password), talk to the assistant, answer its questions with buttons or a
// field, and see what it says on its own (reminders, notices) while the page is open (long polling). When the
// console says the assistant transcribes voice, a microphone button records a voice note (MediaRecorder, Opus in
// WebM or OGG); the transcript the assistant heard is shown as the user's message.
// What the user typed goes in through textContent; the assistant's text comes from the console server already
// rendered as safe HTML (every character escaped, only its own tags), the only HTML this page inserts. Once it has
// shown what the assistant said on its own, the page says so (the outbox's receipt). The helpers it shares with the
// console (API calls, errors, the notice line) are common.js's.
'use strict';
(() => {
  const { $, api, notice, useSession } = window.consolePage;
  let cursor = null;
  let listening = false;
  let recorder = null;
  /** The question a recording answers: the last one asked with a field. */
  let openQuestion = null;
  /** Outbox messages shown whose receipt the console has not taken yet (sent again with the next ones). */
  let unreceipted = [];

  /** A message bubble: `text` as text, or `html` as the server rendered it. */
  function bubble(kind, label, content) {
    const item = document.createElement('li');
    item.className = 'message ' + kind;
    const tag = document.createElement('span');
    tag.className = 'label';
    tag.textContent = label;
    item.append(tag);
    const body = document.createElement('div');
    body.className = 'body';
    if (content.html !== undefined) body.innerHTML = content.html;
    else body.textContent = content.text;
    item.append(body);
    $('#messages').append(item);
    item.scrollIntoView({ block: 'end' });
    return item;
  }

  function controlsFor(item, question) {
    const answer = document.createElement('div');
    answer.className = 'answer';
    const done = () => answer.querySelectorAll('button, input').forEach((element) => (element.disabled = true));
    if (question.buttons) {
      for (const choice of question.buttons) {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = choice.label;
        button.className = 'primary';
        button.addEventListener('click', () => {
          done();
          send(choice.answer, question.id, choice.label);
        });
        answer.append(button);
      }
    } else if (question.field) {
      const form = document.createElement('form');
      form.className = 'answer';
      const input = document.createElement('input');
      input.required = true;
      input.name = 'answer';
      if (question.field.kind === 'code') {
        input.autocomplete = 'one-time-code';
        input.inputMode = 'numeric';
        input.placeholder = 'Code';
      } else {
        input.placeholder = 'Your answer';
      }
      const submit = document.createElement('button');
      submit.type = 'submit';
      submit.textContent = 'Answer';
      form.append(input, submit);
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        const value = input.value;
        // A code is not left on the page: the field is emptied, the bubble shows dots.
        if (question.field.kind === 'code') input.value = '';
        done();
        send(value, question.id, question.field.kind === 'code' ? '••••••' : value);
      });
      answer.append(form);
    }
    item.append(answer);
  }

  function showAnswer(answer) {
    if (answer.question) {
      openQuestion = answer.question.field ? answer.question.id : null;
      controlsFor(bubble('assistant', 'Assistant asks', answer.question), answer.question);
    } else if (answer.reply) bubble('assistant', 'Assistant', answer.reply);
    else if (answer.pending) bubble('assistant', 'Assistant', { text: answer.note });
  }

  async function send(text, replyTo, shownAs) {
    if (replyTo && replyTo === openQuestion) openQuestion = null;
    bubble('user', 'You', { text: shownAs === undefined ? text : shownAs });
    $('#typing').hidden = false;
    try {
      const body = { message: text };
      if (replyTo) body.reply_to = replyTo;
      showAnswer(await api('chat/messages', { method: 'POST', body }));
    } catch (error) {
      if (error.status === 401) return signedOut();
      bubble('error', 'Not sent', { text: error.message });
    } finally {
      $('#typing').hidden = true;
    }
  }

  /** A recorded voice note: its transcript shown as what the user said, then the answer. */
  async function sendVoice(blob, replyTo) {
    $('#typing').hidden = false;
    try {
      const query = replyTo ? '?reply_to=' + encodeURIComponent(replyTo) : '';
      const answer = await api('chat/voice' + query, { method: 'POST', raw: blob });
      if (replyTo && replyTo === openQuestion) openQuestion = null;
      bubble('user', 'You (voice)', { text: answer.transcript || '(voice note)' });
      showAnswer(answer);
    } catch (error) {
      if (error.status === 401) return signedOut();
      // Transcription off: the assistant said why; the microphone goes away.
      if (error.status === 503) $('#record').hidden = true;
      bubble('error', 'Voice note not sent', { text: error.message });
    } finally {
      $('#typing').hidden = true;
    }
  }

  const RECORDING_TYPES = ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/webm', 'audio/ogg'];
  /** Three minutes of Opus stay well under the console's 3 MB. */
  const MAX_RECORDING_MS = 180_000;

  async function toggleRecording() {
    const button = $('#record');
    if (recorder) {
      recorder.stop();
      return;
    }
    const type = RECORDING_TYPES.find((candidate) => MediaRecorder.isTypeSupported(candidate));
    if (!type) return bubble('error', 'Voice note not sent', { text: 'This browser cannot record Opus audio.' });
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (error) {
      return bubble('error', 'Voice note not sent', { text: 'No microphone: ' + error.message });
    }
    const chunks = [];
    const replyTo = openQuestion;
    recorder = new MediaRecorder(stream, { mimeType: type });
    recorder.addEventListener('dataavailable', (event) => chunks.push(event.data));
    recorder.addEventListener('stop', () => {
      stream.getTracks().forEach((track) => track.stop());
      recorder = null;
      button.textContent = '🎤 Voice';
      button.setAttribute('aria-pressed', 'false');
      const blob = new Blob(chunks, { type: type.split(';')[0] });
      if (blob.size > 0) sendVoice(blob, replyTo);
    });
    recorder.start();
    button.textContent = '■ Stop';
    button.setAttribute('aria-pressed', 'true');
    setTimeout(() => recorder && recorder.state === 'recording' && recorder.stop(), MAX_RECORDING_MS);
  }

  /** What the assistant says on its own: asked again and again, each call waiting on the server for news. */
  async function listen() {
    if (listening) return;
    listening = true;
    while (listening) {
      try {
        const query = cursor === null ? '' : '?after=' + encodeURIComponent(cursor);
        const events = await api('chat/events' + query);
        for (const message of events.messages) {
          const kind = message.earlier ? 'proactive earlier' : 'proactive';
          bubble(kind, labelOf(message.kind) + (message.earlier ? ' (earlier)' : ''), message);
        }
        cursor = events.cursor;
        await receipt(events.messages.map((message) => message.id));
      } catch (error) {
        if (error.status === 401) return signedOut();
        await new Promise((resolve) => setTimeout(resolve, 3000));
      }
    }
  }

  /** Tells the console these messages are on the page (their receipt); kept for the next call if it fails. */
  async function receipt(ids) {
    unreceipted = [...unreceipted, ...ids].slice(-500);
    if (unreceipted.length === 0) return;
    const shown = unreceipted;
    await api('chat/receipts', { method: 'POST', body: { shown } });
    unreceipted = unreceipted.filter((id) => !shown.includes(id));
  }

  const LABELS = { reminder: 'Reminder', check: 'Check', notice: 'Notice', reply: 'Assistant (late reply)' };
  const labelOf = (kind) => LABELS[kind] || 'Assistant';

  function signedOut() {
    listening = false;
    cursor = null;
    unreceipted = [];
    useSession('');
    $('#chat').hidden = true;
    $('#chat-nav').hidden = true;
    $('#sign-in').hidden = false;
  }

  async function start(session) {
    useSession(session.csrf_token);
    $('#sign-in').hidden = true;
    $('#chat').hidden = false;
    $('#chat-nav').hidden = false;
    const state = await api('chat');
    if (!state.on) {
      notice('The web chat is off: the judge needs JUDGE_CONSOLE_ASSISTANT_URL and JUDGE_CONSOLE_ASSISTANT_KEY.', true);
      return;
    }
    $('#record').hidden = !(state.voice && window.MediaRecorder && navigator.mediaDevices);
    listen();
  }

  $('#sign-in-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const session = await api('session', { method: 'POST', body: { password: $('#password').value } });
      $('#password').value = '';
      notice('');
      await start(session);
    } catch (error) {
      notice(error.message, true);
    }
  });

  $('#chat-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const text = $('#chat-input').value;
    if (text.trim() === '') return;
    $('#chat-input').value = '';
    send(text);
  });

  $('#record').addEventListener('click', toggleRecording);

  $('#chat-input').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      $('#chat-form').requestSubmit();
    }
  });

  $('#sign-out').addEventListener('click', async () => {
    await api('session', { method: 'DELETE' }).catch(() => undefined);
    signedOut();
  });

  api('session')
    .then(start)
    .catch((error) => {
      if (error.status !== 401) notice(error.message, true);
      signedOut();
    });
})();
