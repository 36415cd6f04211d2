import { mount } from 'svelte';
import App from './app.svelte';
import { fetchEarly } from './lib/api.js';
import { getLocale } from './lib/i18n.js';
import './styles.css';

// the history's default first page is asked for before the app mounts
if (location.pathname === '/history' && location.search === '') fetchEarly('/api/history?page=0&limit=25&sort=desc');

// the page's language is its build's: the server sent it for the kura-lang cookie or Accept-Language
document.documentElement.lang = getLocale();
mount(App, { target: document.getElementById('app') as HTMLElement });
